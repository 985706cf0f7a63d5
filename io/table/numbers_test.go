package table

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/optimus-sched/optimus/io/schema"
)

// TestResourceColumnsDoNotVanish: a cluster column that holds numbers is a
// resource, whatever else it holds and however its header is spaced: a
// value that is not a number is an error naming the column and the first
// bad row, never a label that makes the resource disappear; a column of
// words is a label; a text column of numbers in a typed file is an error.
func TestResourceColumnsDoNotVanish(t *testing.T) {
	cases := []struct {
		name, csv string
		want      string // error substring; "" for success
		resources []string
	}{
		{"overflowing capacity", "node,gpu\nn1,8\nn2,1e309\n", `column "gpu", row 2 (line 3): +Inf is not allowed`, nil},
		{"a word among numbers", "node,gpu\nn1,8\nn2,lots\n", `column "gpu", row 2 (line 3): "lots" is not a number: the column holds numbers, so it is a resource column`, nil},
		{"words in the majority", "node,gpu\nn1,lots\nn2,many\nn3,8\n", `column "gpu", row 1 (line 2): "lots" is not a number`, nil},
		{"spreadsheet thousands", "node,gpu\nn1,1_000\nn2,8\n", `column "gpu", row 1 (line 2): "1_000" is not a number`, nil},
		{"hex float", "node,gpu\nn1,0x1p3\nn2,8\n", `"0x1p3" is not a number`, nil},
		{"spaces after commas", "node, gpu, cpu\nn1, 4, 16\nn2, 0, 32\n", "", []string{"gpu", "cpu"}},
		{"a label of words", "node,gpu,zone\nn1,4,east\nn2,8,west\n", "", []string{"gpu"}},
		{"only labels", "node,zone\nn1,east\n", `no resource columns: a cluster table needs at least one (`, nil},
		{"only labels named", "node,zone\nn1,east\n", `"zone" hold text, read as labels`, nil},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tb, err := Decode([]byte(c.csv), CSV, "cluster.csv", schema.Cluster)
			if c.want != "" {
				if err == nil || !strings.Contains(err.Error(), c.want) {
					t.Fatalf("got %v, want an error saying %q", err, c.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range c.resources {
				if i := tb.Index(r); i < 0 || tb.Field(i).Type.ID().String() != "FLOAT64" {
					t.Errorf("%q is not a float resource column: %v", r, tb.ColumnNames())
				}
			}
		})
	}
	// The same columns typed as text in Arrow and Parquet.
	text := New(nil, 2)
	text.SetStrings("node", []string{"n1", "n2"}, nil)
	text.SetStrings("gpu", []string{"8", "4"}, nil)
	text.SetFloat64s("cpu", []float64{16, 32}, nil)
	for _, f := range []Format{ArrowStream, ArrowFile, Parquet} {
		var buf bytes.Buffer
		if err := Write(&buf, f, text); err != nil {
			t.Fatal(err)
		}
		_, err := Decode(buf.Bytes(), f, "cluster", schema.Cluster)
		if err == nil || !strings.Contains(err.Error(), `cluster: column "gpu", row 1: "8" is text (the column has type utf8): a resource column holds numbers`) {
			t.Errorf("%s: %v", f, err)
		}
	}
}

// TestNumberSyntax: what reads as a number in CSV, in float and int
// columns alike: decimal and exponent forms, NaN and infinities with or
// without a sign; not Go's own 1_000 or hex floats.
func TestNumberSyntax(t *testing.T) {
	cases := []struct {
		in   string
		want float64
		ok   bool
	}{
		{"2.5", 2.5, true}, {"-3", -3, true}, {"1e5", 1e5, true}, {".5", 0.5, true}, {"5.", 5, true},
		{"NaN", math.NaN(), true}, {"nan", math.NaN(), true}, {"+nan", math.NaN(), true}, {"-NaN", math.NaN(), true},
		{"+inf", math.Inf(1), true}, {"-Inf", math.Inf(-1), true}, {"Infinity", math.Inf(1), true},
		{"1e309", math.Inf(1), true},
		{"1_000", 0, false}, {"0x1p4", 0, false}, {"0X10", 0, false}, {"-0x1p4", 0, false},
		{"1,5", 0, false}, {"0b101", 0, false}, {"--1", 0, false}, {"+-1", 0, false}, {"", 0, false}, {"one", 0, false},
	}
	for _, c := range cases {
		got, ok := parseNumber(c.in)
		if ok != c.ok || ok && !(got == c.want || math.IsNaN(got) && math.IsNaN(c.want)) {
			t.Errorf("parseNumber(%q) = %v, %v; want %v, %v", c.in, got, ok, c.want, c.ok)
		}
		// The loss table's value column (float, NaN allowed) and step
		// column (int) read the same syntax.
		_, err := Decode([]byte("job,step,value\na,0,"+c.in+"\n"), CSV, "loss.csv", schema.Loss)
		if ok := err == nil || c.in == ""; ok != c.ok && c.in != "" {
			t.Errorf("value %q: %v", c.in, err)
		}
	}
	for _, in := range []string{"1_000", "0x10", "1e3"} {
		_, err := Decode([]byte("job,step,value\na,"+in+",1\n"), CSV, "loss.csv", schema.Loss)
		if (err == nil) != (in == "1e3") {
			t.Errorf("step %q: %v", in, err)
		}
	}
}

// TestRangesAreCheckedAtTheInput: integers past float64's exact range,
// past int64's, uint64 values past int64's, integers converted to float
// columns inexactly, and weights that would make objectives infinite are
// located input errors, in CSV and in typed files.
func TestRangesAreCheckedAtTheInput(t *testing.T) {
	jobs := "job,model,mode,global_batch,epoch_steps,weight\n"
	csvCases := []struct {
		name, csv string
		want      *schema.Table
		err       string
	}{
		{"step near 2^63", "job,step,value\na,9223372036854775000,1\n", schema.Loss, `column "step", row 1 (line 2): 9223372036854775000 is beyond ±2^53`},
		{"step past int64", "job,step,value\na,9223372036854775808,1\n", schema.Loss, `"9223372036854775808" is beyond the range of int64`},
		{"global batch past 2^53", jobs + "a,m,sync,9007199254740993,10,1\n", schema.Jobs, `column "global_batch", row 1 (line 2): 9007199254740993 is beyond ±2^53`},
		{"global batch at 2^53", jobs + "a,m,sync,9007199254740992,10,1\n", schema.Jobs, ""},
		{"weight 1e308", jobs + "a,m,sync,32,10,1e308\n", schema.Jobs, `column "weight", row 1 (line 2): 1e+308 is more than 1e+06`},
		{"weight at the bound", jobs + "a,m,sync,32,10,1e6\n", schema.Jobs, ""},
	}
	for _, c := range csvCases {
		t.Run(c.name, func(t *testing.T) {
			_, err := Decode([]byte(c.csv), CSV, "in.csv", c.want)
			if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
				t.Errorf("got %v, want %q", err, c.err)
			}
		})
	}
	// Typed columns: uint64 and int64 values where float64 and int64 are
	// declared.
	typed := []struct {
		name string
		col  func() arrowCol
		want *schema.Table
		err  string
	}{
		{"uint64 past 2^63 as a capacity", func() arrowCol { return uint64Col("gpu", 1<<63+5) }, schema.Cluster, `column "gpu", row 1: 9223372036854775813 is beyond ±2^53`},
		{"int64 past 2^53 as a capacity", func() arrowCol { return int64Col("gpu", 1<<53+1) }, schema.Cluster, `9007199254740993 is beyond ±2^53: it has no exact float64 value`},
		{"int64 capacity", func() arrowCol { return int64Col("gpu", 8) }, schema.Cluster, ""},
	}
	for _, c := range typed {
		t.Run(c.name, func(t *testing.T) {
			tb := New(nil, 1)
			tb.SetStrings("node", []string{"n1"}, nil)
			col := c.col()
			tb.SetColumn(col.name, col.arr)
			for _, f := range []Format{ArrowStream, Parquet} {
				var buf bytes.Buffer
				if err := Write(&buf, f, tb); err != nil {
					t.Fatal(err)
				}
				_, err := Decode(buf.Bytes(), f, "cluster", c.want)
				if c.err == "" && err != nil || c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
					t.Errorf("%s: got %v, want %q", f, err, c.err)
				}
			}
		})
	}
}
