package exec

import (
	"context"
	"time"

	"github.com/spf13/pflag"

	"github.com/optimus-sched/optimus/executor"
)

func init() {
	executor.Register(&executor.Kind{
		Name:  "exec",
		Short: "runs --program per job change",
		Long: `runs --program once per job change: PROGRAM ACTION JOB --generation G
--ps P --workers W, with the change as JSON on standard input, never
through a shell; exit status 0 is done, its standard error the message`,
		Order:     2,
		NewConfig: func() executor.Config { return &Config{Timeout: DefaultTimeout} },
		FileFlags: []string{"program"},
	})
}

// Config is the exec executor's configuration from optimus apply's flags.
type Config struct {
	Program string
	Timeout time.Duration
}

// AddFlags defines --program and --exec-timeout.
func (c *Config) AddFlags(fs *pflag.FlagSet) {
	fs.StringVar(&c.Program, "program", c.Program, "the `PROGRAM` to run per change (a path, or a name looked up in PATH)")
	fs.DurationVar(&c.Timeout, "exec-timeout", c.Timeout, "kill a call of the program (and its process group) after `DURATION`")
}

// Check wants a program and a positive timeout.
func (c *Config) Check() error {
	if c.Program == "" {
		return executor.Usagef("--executor exec needs --program PATH: the program to run per change")
	}
	if c.Timeout <= 0 {
		return executor.Usagef("--exec-timeout %s: give a positive duration", c.Timeout)
	}
	return nil
}

// New builds the exec executor; a program that cannot run is the user's
// error.
func (c *Config) New(_ context.Context, env executor.Env) (executor.Executor, error) {
	e, err := New(Options{Program: c.Program, Timeout: c.Timeout, Current: env.Current, Capacity: env.Capacity})
	if err != nil {
		return nil, executor.Usagef("--program %v", err)
	}
	return e, nil
}
