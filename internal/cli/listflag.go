package cli

import (
	"encoding/csv"
	"strings"

	"github.com/spf13/pflag"
)

// listFlag is a string flag that may be given more than once. Given
// again, it adds to the values; given first, it replaces the default.
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

// stringsFlag adds a list flag to f that stores its values in p.
func stringsFlag(f *pflag.FlagSet, p *[]string, commas bool, name, usage string) {
	f.Var(&listFlag{values: p, commas: commas}, name, usage)
}

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
		*l.values = nil
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

// Type names the value in help as pflag does for its own ("strings",
// "stringArray").
func (l *listFlag) Type() string {
	if l.commas {
		return "strings"
	}
	return "stringArray"
}
