package cmdutil

import (
	"bytes"
	"fmt"
	"io"

	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/io/table"
)

// Page is a document that is not a table, such as chart's HTML pages.
type Page interface {
	Render(w io.Writer) error
}

// WritePage renders page to path, atomically, or to standard output when
// path is "" or "-". It renders into memory first, so that a render error
// writes nothing.
func WritePage(ios *iostreams.IOStreams, path string, page Page) error {
	var buf bytes.Buffer
	if err := page.Render(&buf); err != nil {
		return fmt.Errorf("rendering the page: %w", err)
	}
	if path == "" || path == "-" {
		_, err := ios.Out.Write(buf.Bytes())
		return err
	}
	return table.AtomicWrite(path, func(w io.Writer) error {
		_, err := w.Write(buf.Bytes())
		return err
	})
}
