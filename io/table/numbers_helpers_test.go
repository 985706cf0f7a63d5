package table

import (
	"github.com/apache/arrow-go/v18/arrow"
	"github.com/apache/arrow-go/v18/arrow/array"
)

type arrowCol struct {
	name string
	arr  arrow.Array
}

func uint64Col(name string, v uint64) arrowCol {
	b := array.NewUint64Builder(mem)
	b.Append(v)
	return arrowCol{name, b.NewArray()}
}

func int64Col(name string, v int64) arrowCol {
	b := array.NewInt64Builder(mem)
	b.Append(v)
	return arrowCol{name, b.NewArray()}
}
