package datasets

import (
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
