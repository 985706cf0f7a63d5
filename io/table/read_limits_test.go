package table

import (
	"bytes"
	"encoding/binary"
	"runtime"
	"strings"
	"testing"
)

// allocated is how many bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A corrupt Arrow stream whose length fields claim more than the input
// holds is rejected without allocating what they claim (found by
// FuzzReadArrowStream: a 2 kB tail of a stream made the reader allocate
// about 1 GB).
func TestArrowLengthsBeyondInputAllocateNothing(t *testing.T) {
	tb := sampleJobs(t)
	var stream, file bytes.Buffer
	if err := Write(&stream, ArrowStream, tb); err != nil {
		t.Fatal(err)
	}
	if err := Write(&file, ArrowFile, tb); err != nil {
		t.Fatal(err)
	}
	s := stream.Bytes()
	// Metadata length: the int32 after the continuation marker.
	bigMeta := bytes.Clone(s)
	binary.LittleEndian.PutUint32(bigMeta[4:], 60<<20)
	cases := []struct {
		name   string
		data   []byte
		format Format
	}{
		{"stream tail", s[len(s)/3:], ArrowStream},
		{"metadata length", bigMeta, ArrowStream},
		{"legacy metadata length", bigMeta[4:], ArrowStream},
	}
	for _, c := range cases {
		var err error
		n := allocated(func() { _, err = Decode(c.data, c.format, "in", nil) })
		if err == nil {
			t.Errorf("%s: accepted", c.name)
			continue
		}
		if !strings.HasPrefix(err.Error(), "in: ") {
			t.Errorf("%s: error %q", c.name, err)
		}
		if n > 16<<20 {
			t.Errorf("%s: a %d-byte input allocated %d MB (%v)", c.name, len(c.data), n>>20, err)
		}
	}
}
