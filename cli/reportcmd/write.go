package reportcmd

import (
	"bytes"
	"fmt"
	"io"

	"github.com/optimus-sched/optimus/chart"
	"github.com/optimus-sched/optimus/cli/iostreams"
	"github.com/optimus-sched/optimus/io/table"
)

// writePage renders the page to path (atomically), or to standard output
// when path is "" or "-".
func writePage(ios *iostreams.IOStreams, path string, page *chart.Page) error {
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
