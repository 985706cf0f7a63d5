package datasets

import (
	"reflect"
	"testing"
)

// The built-in parameter blocks add up to the published parameter counts.
func TestParameterBlocksMatchPublishedSizes(t *testing.T) {
	for model, want := range map[string]struct {
		params int64
		blocks int
	}{
		"vgg-16":    {138_357_544, 32},
		"resnet-50": {25_557_032, 161},
	} {
		bs, err := ParameterBlocks(model)
		if err != nil {
			t.Fatal(err)
		}
		var bytes int64
		for _, b := range bs {
			bytes += b.Bytes
		}
		if bytes != 4*want.params || len(bs) != want.blocks {
			t.Errorf("%s: %d parameters in %d blocks, want %d in %d", model, bytes/4, len(bs), want.params, want.blocks)
		}
	}
	if _, err := ParameterBlocks("gpt-5"); err == nil {
		t.Error("unknown model: no error")
	}
}

// JobModels fits once per process: every call gives the models a fit of
// the measurements gives, in a copy of its own.
func TestJobModelsAreFittedOnceAndCopied(t *testing.T) {
	a, err := JobModels()
	if err != nil {
		t.Fatal(err)
	}
	want, err := fitJobModels()
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, want) || len(a) == 0 {
		t.Fatalf("JobModels %+v, a fit gives %+v", a, want)
	}
	a[0].Name, a[0].Speed.Theta[0] = "changed", -1
	b, _ := JobModels()
	if !reflect.DeepEqual(b, want) {
		t.Errorf("a change to one caller's models reached the next: %+v", b[0])
	}
}
