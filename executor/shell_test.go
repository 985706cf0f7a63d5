package executor

import (
	"reflect"
	"strings"
	"testing"
)

func TestSplitCommand(t *testing.T) {
	tests := []struct {
		in      string
		want    []string
		wantErr string
	}{
		{in: "", want: nil},
		{in: "   ", want: nil},
		{in: "python train.py --lr 0.1", want: []string{"python", "train.py", "--lr", "0.1"}},
		{in: `python  train.py   --name "resnet 50"`, want: []string{"python", "train.py", "--name", "resnet 50"}},
		{in: `sh -c 'echo $HOME; ls'`, want: []string{"sh", "-c", "echo $HOME; ls"}},
		{in: `a\ b "c\"d" ''`, want: []string{"a b", `c"d`, ""}},
		{in: `train --data=$(DATA_DIR)`, want: []string{"train", "--data=$(DATA_DIR)"}},
		{in: "train $HOME", want: []string{"train", "$HOME"}},
		{in: `python "unterminated`, wantErr: "unbalanced quotes"},
		{in: "python train.py; rm -rf /", wantErr: "shell operator at byte 15"},
		{in: "python train.py | tee log", wantErr: "shell operator"},
		{in: "python train.py > log", wantErr: "shell operator"},
		{in: "a && b", wantErr: "shell operator"},
	}
	for _, tt := range tests {
		got, err := SplitCommand(tt.in)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("SplitCommand(%q) error = %v, want one containing %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("SplitCommand(%q) error: %v", tt.in, err)
			continue
		}
		if !reflect.DeepEqual(got, tt.want) {
			t.Errorf("SplitCommand(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// ShellQuote's line splits back into its argv, by SplitCommand as by a shell.
func TestShellQuote(t *testing.T) {
	tests := []struct {
		argv []string
		want string
	}{
		{[]string{"launch", "start", "resnet50-a", "--ps", "1"}, "launch start resnet50-a --ps 1"},
		{[]string{"a b", "", "x$(id);y", "it's"}, `'a b' '' 'x$(id);y' 'it'\''s'`},
		{[]string{"/opt/my launcher", "*", "~", "#"}, `'/opt/my launcher' '*' '~' '#'`},
	}
	for _, tt := range tests {
		got := ShellQuote(tt.argv)
		if got != tt.want {
			t.Errorf("ShellQuote(%q) = %s, want %s", tt.argv, got, tt.want)
		}
		back, err := SplitCommand(got)
		if err != nil || !reflect.DeepEqual(back, tt.argv) {
			t.Errorf("SplitCommand(%s) = %q, %v; want %q", got, back, err, tt.argv)
		}
	}
}
