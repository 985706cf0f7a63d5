package table

import (
	"bytes"
	"testing"

	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
	"github.com/apache/arrow-go/v18/arrow/ipc"
)

// denseStrings builds the array the string builder built from the same
// dictionary chunks (the reader's path until session 7): the same values
// and nulls, and the same bytes in an Arrow IPC stream, which the inputs'
// content digest hashes.
func TestDenseStringsAsTheBuilderBuilt(t *testing.T) {
	dictOf := func(vals []string, idx []int32, valid []bool) arrow.Array {
		db := array.NewStringBuilder(mem)
		defer db.Release()
		db.AppendValues(vals, nil)
		d := db.NewArray()
		defer d.Release()
		ib := array.NewInt32Builder(mem)
		defer ib.Release()
		ib.AppendValues(idx, valid)
		i := ib.NewArray()
		defer i.Release()
		return array.NewDictionaryArray(stringDictionary, i, d)
	}
	builder := func(chunks []arrow.Array) arrow.Array {
		b := array.NewStringBuilder(mem)
		defer b.Release()
		for _, c := range chunks {
			d := c.(*array.Dictionary)
			for r := range d.Len() {
				if d.IsNull(r) {
					b.AppendNull()
				} else {
					b.Append(d.Dictionary().(*array.String).Value(int(d.GetValueIndex(r))))
				}
			}
		}
		return b.NewArray()
	}
	stream := func(a arrow.Array) []byte {
		var buf bytes.Buffer
		sc := arrow.NewSchema([]arrow.Field{{Name: "s", Type: arrow.BinaryTypes.String, Nullable: true}}, nil)
		w := ipc.NewWriter(&buf, ipc.WithSchema(sc))
		rec := array.NewRecordBatch(sc, []arrow.Array{a}, int64(a.Len()))
		defer rec.Release()
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		w.Close()
		return buf.Bytes()
	}
	many := make([]int32, 1000)
	for i := range many {
		many[i] = int32(i % 3)
	}
	manyValid := make([]bool, len(many))
	for i := range manyValid {
		manyValid[i] = i%7 != 0
	}
	for name, chunks := range map[string][][]arrow.Array{
		"no nulls":   {{dictOf([]string{"a", "bb", ""}, []int32{0, 1, 1, 2, 0}, nil)}},
		"nulls":      {{dictOf([]string{"x", "é"}, []int32{0, 0, 1, 0}, []bool{true, false, true, false})}},
		"all null":   {{dictOf([]string{"x"}, []int32{0, 0}, []bool{false, false})}},
		"two chunks": {{dictOf([]string{"a", "b"}, []int32{1, 0}, nil), dictOf([]string{"c"}, []int32{0, 0, 0}, []bool{true, false, true})}},
		"1000 rows":  {{dictOf([]string{"p", "qq", "rrr"}, many, manyValid), dictOf([]string{"z"}, make([]int32, 37), nil)}},
	} {
		for _, cs := range chunks {
			got, err := denseStrings(cs)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			want := builder(cs)
			if !array.Equal(got, want) || got.NullN() != want.NullN() {
				t.Errorf("%s: %v (%d nulls), want %v (%d nulls)", name, got, got.NullN(), want, want.NullN())
			}
			if g, w := stream(got), stream(want); !bytes.Equal(g, w) {
				t.Errorf("%s: the IPC stream differs: %d bytes, want %d", name, len(g), len(w))
			}
			got.Release()
			want.Release()
			for _, c := range cs {
				c.Release()
			}
		}
	}
}
