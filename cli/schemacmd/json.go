package schemacmd

import (
	"encoding/json"
	"io"

	"github.com/optimus-sched/optimus/io/schema"
)

// The JSON form of the declared tables, for programs (the interop checks
// read it to know what type each column of a file must have). Columns and
// patterns include those inherited from the table a table extends, as a
// file of that table holds them.

type jsonSchema struct {
	MetaName    string      `json:"meta_name"`    // metadata key holding the table's name
	MetaVersion string      `json:"meta_version"` // metadata key holding its schema version
	Tables      []jsonTable `json:"tables"`
}

type jsonTable struct {
	Name              string        `json:"name"`
	Version           int           `json:"version"`
	Doc               string        `json:"doc"`
	Key               string        `json:"key,omitempty"`
	Extends           string        `json:"extends,omitempty"`
	Columns           []jsonColumn  `json:"columns"`
	Patterns          []jsonPattern `json:"patterns"`
	MinPatternColumns int           `json:"min_pattern_columns"`
}

type jsonColumn struct {
	Name     string   `json:"name"`
	Type     string   `json:"type"` // string, int64, float64 or bool
	Unit     string   `json:"unit,omitempty"`
	Required bool     `json:"required"`
	Default  *string  `json:"default"` // null when an absent column reads as null
	Nullable bool     `json:"nullable"`
	Unique   bool     `json:"unique"`
	NonEmpty bool     `json:"non_empty"`
	Enum     []string `json:"enum,omitempty"`
	Min      *float64 `json:"min"`
	MinOpen  bool     `json:"min_open"`
	Max      *float64 `json:"max"`
	AllowNaN bool     `json:"allow_nan"`
	Doc      string   `json:"doc"`
}

// jsonPattern: a column not declared by name whose name starts with Prefix
// ("" matches any) and that holds numbers has this type and is not nullable.
type jsonPattern struct {
	Prefix string   `json:"prefix"`
	Type   string   `json:"type"`
	Unit   string   `json:"unit,omitempty"`
	Min    *float64 `json:"min"`
	Doc    string   `json:"doc"`
}

func tableJSON(t *schema.Table) jsonTable {
	jt := jsonTable{Name: t.Name, Version: t.Version, Doc: t.Doc, Key: t.Key, Extends: t.Extends,
		Columns: []jsonColumn{}, Patterns: []jsonPattern{}, MinPatternColumns: t.MinPatternColumns}
	for _, c := range t.AllColumns() {
		jc := jsonColumn{Name: c.Name, Type: c.Type.String(), Unit: c.Unit, Required: c.Required,
			Nullable: c.Nullable, Unique: c.Unique, NonEmpty: c.NonEmpty, Enum: c.Enum,
			Min: c.Min, MinOpen: c.MinOpen, Max: c.Max, AllowNaN: c.AllowNaN, Doc: c.Doc}
		if c.Default != "" {
			d := c.Default
			jc.Default = &d
		}
		jt.Columns = append(jt.Columns, jc)
	}
	for _, p := range t.AllPatterns() {
		jt.Patterns = append(jt.Patterns, jsonPattern{Prefix: p.Prefix, Type: p.Type.String(), Unit: p.Unit, Min: p.Min, Doc: p.Doc})
	}
	return jt
}

// writeJSON prints one table (t non-nil) or all of them.
func writeJSON(w io.Writer, t *schema.Table) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	if t != nil {
		return enc.Encode(tableJSON(t))
	}
	out := jsonSchema{MetaName: schema.MetaName, MetaVersion: schema.MetaVersion}
	for _, t := range schema.All {
		out.Tables = append(out.Tables, tableJSON(t))
	}
	return enc.Encode(out)
}
