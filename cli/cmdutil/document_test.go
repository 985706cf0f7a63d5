package cmdutil

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/optimus-sched/optimus/cli/iostreams"
)

type pageFunc func(io.Writer) error

func (f pageFunc) Render(w io.Writer) error { return f(w) }

// A page goes to the file or to standard output; one that fails to render
// writes nothing, not even an empty file.
func TestWritePage(t *testing.T) {
	ios, _, out, _ := iostreams.Test()
	good := pageFunc(func(w io.Writer) error { _, err := io.WriteString(w, "<html></html>"); return err })
	if err := WritePage(ios, "-", good); err != nil || out.String() != "<html></html>" {
		t.Fatalf("stdout: %q, %v", out.String(), err)
	}
	path := filepath.Join(t.TempDir(), "page.html")
	if err := WritePage(ios, path, good); err != nil {
		t.Fatal(err)
	}
	if b, err := os.ReadFile(path); err != nil || string(b) != "<html></html>" {
		t.Fatalf("file: %q, %v", b, err)
	}
	bad := pageFunc(func(w io.Writer) error { io.WriteString(w, "<html>"); return errors.New("no data") })
	other := filepath.Join(t.TempDir(), "other.html")
	if err := WritePage(ios, other, bad); err == nil || !strings.Contains(err.Error(), "rendering the page: no data") {
		t.Fatalf("render error: %v", err)
	}
	if _, err := os.Stat(other); !os.IsNotExist(err) {
		t.Fatalf("a page that failed to render left %s behind (%v)", other, err)
	}
}
