package metrics

import (
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
)

func init() {
	register(&Source{
		Name:  "csv",
		Short: "CSV metric logs: PyTorch Lightning's CSVLogger (metrics.csv) and Keras' CSVLogger",
		Long: `Reads a CSV file whose header names the columns. Every numeric cell is a metric named
by its column, except the step (step, global_step, trainer/global_step, iteration or
_step), the epoch (epoch) and the time (time, timestamp, wall_time or _timestamp, as for
JSON lines). Empty cells are skipped, so Lightning's sparse rows (each filling only the
columns logged at that call) read as they were logged. A row with a step is at that
step; a row with only an epoch (Keras' CSVLogger: epoch 0 is the end of the first) at
the end of that epoch. nan and inf cells are read as such.`,
		Files: "*.csv",
		New:   func(map[string]string) (any, error) { return csvReader{}, nil },
	})
}

type csvReader struct{}

type csvColumn struct {
	name string
	kind int // 0 metric, 1 step, 2 epoch, 3 time
}

func (csvReader) ReadFile(name string, r io.Reader, size int64, emit Emit, warn Warn) error {
	var cols []csvColumn
	return scanLines(name, r, size, warn, func(line []byte, no int) error {
		if len(strings.TrimSpace(string(line))) == 0 {
			return nil
		}
		cr := csv.NewReader(strings.NewReader(string(line)))
		cr.FieldsPerRecord = -1
		fields, err := cr.Read()
		if err != nil {
			if cols == nil {
				return &Error{File: name, Line: no, Msg: "not a CSV header: " + err.Error()}
			}
			warn(&Error{File: name, Line: no, Msg: "not a CSV row: line skipped"})
			return nil
		}
		if cols == nil {
			for _, f := range fields {
				f = strings.TrimSpace(f)
				c := csvColumn{name: f}
				switch {
				case isKey(f, stepKeys):
					c.kind = 1
				case isKey(f, epochKeys):
					c.kind = 2
				case isKey(f, timeKeys):
					c.kind = 3
				case !validTag(f):
					return &Error{File: name, Line: no, Msg: fmt.Sprintf("column name %q is not valid UTF-8 text", truncate([]byte(f)))}
				}
				if _, err := strconv.ParseFloat(f, 64); err == nil {
					return &Error{File: name, Line: no, Msg: fmt.Sprintf("the first line is not a header: column %q is a number", f)}
				}
				cols = append(cols, c)
			}
			return nil
		}
		if len(fields) != len(cols) {
			warn(&Error{File: name, Line: no, Msg: fmt.Sprintf("%d fields where the header has %d: line skipped", len(fields), len(cols))})
			return nil
		}
		p := Point{Step: -1, Wall: nan}
		epoch := int64(-1)
		type cell struct {
			tag string
			v   float64
		}
		var cells []cell
		for i, f := range fields {
			f = strings.TrimSpace(f)
			if f == "" {
				continue
			}
			v, err := strconv.ParseFloat(f, 64)
			if err != nil {
				if cols[i].kind == 3 {
					t, err := parseTime(0, f, false)
					if err != nil {
						warn(&Error{File: name, Line: no, Msg: "column " + cols[i].name + ": " + err.Error() + ": line skipped"})
						return nil
					}
					p.Wall = t
				}
				continue // a string cell: not a metric
			}
			switch cols[i].kind {
			case 1, 2:
				n, err := count(cols[i].name, v)
				if err != nil {
					warn(&Error{File: name, Line: no, Msg: err.Error() + ": line skipped"})
					return nil
				}
				if cols[i].kind == 1 {
					p.Step = n
				} else {
					epoch = n
				}
			case 3:
				t, err := parseTime(v, "", true)
				if err != nil {
					warn(&Error{File: name, Line: no, Msg: err.Error() + ": line skipped"})
					return nil
				}
				p.Wall = t
			default:
				cells = append(cells, cell{cols[i].name, v})
			}
		}
		if len(cells) == 0 {
			return nil
		}
		if p.Step < 0 {
			if epoch < 0 {
				warn(&Error{File: name, Line: no, Msg: "neither a step nor an epoch: line skipped"})
				return nil
			}
			p.Epoch = epoch + 1
		}
		for _, c := range cells {
			p.Value = c.v
			emit(c.tag, p)
		}
		return nil
	})
}
