package cli

import (
	"encoding/csv"
	"strings"

	"github.com/spf13/pflag"
)

// listFlag is a string flag that may be given more than once. Given
// again, it adds to the values; given first, it replaces the default,
// with an empty list (not nil) at least: --fallback= says "none", which a
// nil list would leave to the configuration.
// With commas, each value is split at commas (CSV quoting kept), as
// pflag's StringSlice splits them; without, each is kept whole, as its
// StringArray keeps them.
//
// pflag's own print their empty default through a CSV writer (4 KB) when
// they are registered: with 19 of them on rein's commands, that was
// 78 KB of garbage at every start, for text help never shows.
type listFlag struct {
	values *[]string
	commas bool
	given  bool
}

// listFlagVar adds a list flag to f that stores its values in p.
func listFlagVar(f *pflag.FlagSet, p *[]string, commas bool, name, usage string) {
	f.Var(&listFlag{values: p, commas: commas}, name, usage)
}

// Set adds the values of v: v itself, or with commas the values it
// lists ("" lists none).
func (l *listFlag) Set(v string) error {
	vals := []string{v}
	if l.commas {
		vals = nil // "" is no value
		if v != "" {
			var err error
			if vals, err = csv.NewReader(strings.NewReader(v)).Read(); err != nil {
				return err
			}
		}
	}
	if !l.given {
		*l.values = []string{}
		l.given = true
	}
	*l.values = append(*l.values, vals...)
	return nil
}

// String is "" for no values, so that help shows no default; else the
// values in brackets, as pflag prints them.
func (l *listFlag) String() string {
	if len(*l.values) == 0 {
		return ""
	}
	return "[" + strings.Join(*l.values, ",") + "]"
}

// Type is the type pflag's own would have: help names a stringSlice
// "strings", and shell completion offers a flag again when its type says
// it is a slice or an array.
func (l *listFlag) Type() string {
	if l.commas {
		return "stringSlice"
	}
	return "stringArray"
}
