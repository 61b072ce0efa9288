package builtin

import (
	"encoding/json"
	"strings"

	"github.com/rein-agent/rein/internal/registry"
	"github.com/rein-agent/rein/internal/state"
)

// objectSchema returns the input schema of a tool whose input is an object
// with the properties props, each written `"name":{...}` and listed in the
// order the model reads them, of which the names required must be given,
// and no others. The bytes are what every request sends the model: a
// change to them changes the cached prefix of every request.
func objectSchema(required []string, props ...string) string {
	quoted := make([]string, len(required))
	for i, name := range required {
		quoted[i] = `"` + name + `"`
	}
	return `{"type":"object","properties":{` + strings.Join(props, ",") +
		`},"required":[` + strings.Join(quoted, ",") + `],"additionalProperties":false}`
}

// declare returns the tool name, read by the model as description, with
// input schema schema and risk. A tool that only reads (RiskRead) is
// read-only and may run beside others; any other runs alone.
func declare(name, description, schema string, risk registry.Risk, check func(json.RawMessage, state.Ledger) error, execute registry.Executor) registry.Tool {
	t := registry.Tool{
		Name:        name,
		Description: description,
		InputSchema: json.RawMessage(schema),
		Risk:        risk,
		Concurrency: registry.Exclusive,
		Check:       check,
		Execute:     execute,
	}
	if risk == registry.RiskRead {
		t.ReadOnly, t.Concurrency = true, registry.Safe
	}
	return t
}

// fileTool declares the file tool name over ft, whose input T names a
// path and is described by schema: its Check is check, or when check is
// nil, that the path leads where the tool may go; its work is run (see
// fileExecutor). A tool of RiskRead reads its path (forRead), so the
// session's artifacts are in its reach; any other may write it (forWrite).
func fileTool[T pathInput](ft *fileTools, name, description, schema string, risk registry.Risk, check func(json.RawMessage, state.Ledger) error, run fileRun[T]) registry.Tool {
	u := forWrite
	if risk == registry.RiskRead {
		u = forRead
	}
	if check == nil {
		check = pathCheck[T](ft, name, u)
	}
	return declare(name, description, schema, risk, check, fileExecutor(ft, name, u, run))
}
