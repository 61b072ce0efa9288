package projection

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/registry"
)

// fileCall makes one model call of tool (read_file, edit_file) on path,
// whose result is out and whose observation records the file's stamp
// (op, and content's hash), and returns the intent's id.
func (b *sim) fileCall(tool, path, out string, op contract.FileOp, content string) string {
	b.n++
	id := fmt.Sprintf("int_%d", b.n)
	input, _ := json.Marshal(map[string]string{"path": path})
	b.add(&contract.ModelRequested{Model: "m"})
	b.add(&contract.IntentProposed{ToolIntent: contract.ToolIntent{ID: id, ProviderCallID: "call_" + id, ToolName: tool, Input: input}})
	b.add(&contract.ModelFinished{Reason: contract.FinishToolUse})
	stamp := contract.FileStamp{Path: "/w/" + path, Size: int64(len(content)), SHA256: fmt.Sprintf("%x", len(content)*31+len(path)), Op: op}
	b.add(&contract.ToolObservation{Observation: contract.Observation{IntentID: id, ToolName: tool, OK: true, Text: out,
		ArtifactRef: "artifacts/inv_" + id + ".txt", Files: []contract.FileStamp{stamp}}})
	return id
}

// todos makes one todo_write call whose list is items, reported as the
// tool reports it.
func (b *sim) todos(items ...contract.Todo) {
	b.n++
	id := fmt.Sprintf("int_%d", b.n)
	input, _ := json.Marshal(map[string]any{"todos": items})
	b.add(&contract.ModelRequested{Model: "m"})
	b.add(&contract.IntentProposed{ToolIntent: contract.ToolIntent{ID: id, ProviderCallID: "call_" + id, ToolName: "todo_write", Input: input}})
	b.add(&contract.ModelFinished{Reason: contract.FinishToolUse})
	b.add(&contract.TodoUpdated{IntentID: id, Todos: items})
	b.add(&contract.ToolObservation{Observation: contract.Observation{IntentID: id, ToolName: "todo_write", OK: true, Text: "The task list is saved."}})
}

// After a compaction the summary's message holds the plot: the task list
// and the files read and changed, relative to the workspace, as they
// stood at the compaction. Its bytes stay the same, and every request
// extends the one before, while the list changes and more files are read;
// the next compaction brings it up to date.
func TestPlotAfterCompaction(t *testing.T) {
	b := newSim(t, "sys", 16000)
	reg := testRegistry(t)
	opts := &Options{System: "sys", SessionDir: "/s", Budget: NewBudget(b.s.ModelInfo, 0)}
	b.user("make the parser accept trailing commas")
	b.todos(contract.Todo{Content: "Read the parser", Status: contract.TodoCompleted},
		contract.Todo{Content: "Fix trailing commas", Status: contract.TodoInProgress, ActiveForm: "Fixing trailing commas"},
		contract.Todo{Content: "Run the tests", Status: contract.TodoPending})
	for i := range 60 {
		b.fileCall("read_file", fmt.Sprintf("pkg/f%02d.go", i), output("f", 500), contract.FileRead, "x")
	}
	b.fileCall("edit_file", "pkg/f03.go", "edited", contract.FileWrite, "xy")
	b.fileCall("read_file", "/elsewhere/notes.txt"[1:], "notes", contract.FileRead, "n") // a path that is not the workspace's
	b.s.Ledger = b.s.Ledger.With(contract.FileStamp{Path: "/tmp/outside.txt", Op: contract.FileRead})
	compactAll(b, reg, opts)
	p := Project(&b.s, reg, opts)
	text := p.Request.Messages[0].Text
	for _, want := range []string{
		"\n\n[rein: where the work stood at the compaction, from the session's record]\n" +
			"The task list (todo_write) as it stood; a later todo_write replaces it:\n" +
			"- [x] Read the parser\n- [ ] Fix trailing commas (in progress)\n- [ ] Run the tests\n" +
			"Files changed (last written by the session): pkg/f03.go\n" +
			"Files read and not changed by the session since",
		": /tmp/outside.txt, elsewhere/notes.txt, pkg/f00.go, pkg/f01.go, pkg/f02.go, pkg/f04.go,",
		"pkg/f48.go and 11 more\n\n[rein: the user's latest message",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("the summary's message lacks %q:\n%s", want, text)
		}
	}
	prev := marshalled(t, p.Request.Messages)
	b.add(p.Ledger)
	b.todos(contract.Todo{Content: "Fix trailing commas", Status: contract.TodoCompleted})
	b.fileCall("read_file", "pkg/new.go", "new", contract.FileRead, "n")
	next := Project(&b.s, reg, opts)
	cur := marshalled(t, next.Request.Messages)
	if len(cur) < len(prev) || !slices.Equal(prev, cur[:len(prev)]) {
		t.Errorf("after a new list and a read, the request does not extend the one before:\nbefore %s\nafter  %s", prev[0], cur[0])
	}
	compactAll(b, reg, opts)
	after := Project(&b.s, reg, opts).Request.Messages[0].Text
	if !strings.Contains(after, "- [x] Fix trailing commas\nFiles changed") || !strings.Contains(after, "pkg/f48.go and 12 more") {
		t.Errorf("after the next compaction the plot is not brought up to date:\n%s", after)
	}

	// A session with no list and no file has no plot.
	e := newSim(t, "sys", 16000)
	e.user("hello")
	e.call("ls", output("l", 9000), true)
	e.call("ls -l", "x", true)
	compactAll(e, reg, opts)
	if text := Project(&e.s, reg, opts).Request.Messages[0].Text; strings.Contains(text, "where the work stood") {
		t.Errorf("a plot of nothing:\n%s", text)
	}
}

// compactAll compacts b as a person's /compact would: everything before
// the latest turn.
func compactAll(b *sim, reg *registry.Registry, opts *Options) {
	b.t.Helper()
	o := *opts
	o.Asked, o.Budget.Tail = true, 1
	plan, err := PlanCompaction(&b.s, reg, &o)
	if err != nil {
		b.t.Fatal(err)
	}
	b.add(&contract.ContextCompacted{Summary: "## Goals and constraints\nthe summary", Replaced: plan.Replaced,
		FromSeq: plan.FromSeq, ToSeq: plan.ToSeq, By: contract.CompactUser})
}

// A compaction never drops the latest user request: a turn of many tool
// calls puts the user's message far before the protected tail, and each
// request after one compaction, then another, holds it verbatim, right
// after the summary.
func TestLatestUserOlderThanTheTail(t *testing.T) {
	b := newSim(t, "sys", 16000)
	reg := testRegistry(t)
	opts := &Options{System: "sys", SessionDir: "/s", Budget: NewBudget(b.s.ModelInfo, 0)}
	b.user("earlier request")
	b.answer("done")
	request := "rename Config.Load to Config.Read everywhere,\n  keeping the   spacing and the trailing newline\n"
	b.user(request)
	compactions := 0
	for i := range 200 {
		p := Project(&b.s, reg, opts)
		if p.Compact {
			plan, err := PlanCompaction(&b.s, reg, opts)
			if err != nil {
				t.Fatal(err)
			}
			if slices.ContainsFunc(b.s.Messages[plan.Replaced:], func(m contract.ModelMessage) bool { return m.Role == contract.RoleUser }) {
				t.Fatalf("call %d: the kept tail holds the user's message: the test does not test what it says", i)
			}
			b.add(&contract.ContextCompacted{Summary: strings.Repeat("summary. ", 200), Replaced: plan.Replaced,
				FromSeq: plan.FromSeq, ToSeq: plan.ToSeq, By: contract.CompactAuto})
			compactions++
			p = Project(&b.s, reg, opts)
			msgs := p.Request.Messages
			if len(msgs) < 2 || msgs[1].Role != contract.RoleUser || msgs[1].Text != request {
				t.Fatalf("compaction %d: the second message is %+v, want the latest user request verbatim", compactions, msgs[1])
			}
			if n := slices.IndexFunc(msgs, func(m contract.ModelMessage) bool { return m.Text == "earlier request" }); n >= 0 {
				t.Errorf("compaction %d: the earlier request is message %d; it was summarised", compactions, n)
			}
		}
		b.add(p.Ledger)
		b.call(fmt.Sprintf("sed -i s/Load/Read/ f%d.go", i), output("r", 900), true) // too small to elide
	}
	if compactions < 2 {
		t.Errorf("%d compactions in the turn, want two or more", compactions)
	}
}

// The long session with a model that works through the files of
// a project: at each of 300 steps it needs one of 40 files (in an order
// that comes back to earlier ones), reads it unless the request shows it
// as read and unchanged (a read's result still in the messages, not
// elided, or its path in the plot's list), and edits every fifth it
// needs. The requests are projected, elided and compacted as the kernel
// does. A file read again after a compaction although it has not changed
// since the session last read or wrote it (before that compaction) is a
// re-read the plot should have spared: without the plot (the model reads
// the request with the plot cut out, as rein sent it before) there are
// many; with it, none.
func TestNoFileIsReadAgainAfterACompaction(t *testing.T) {
	without, compactions := rereads(t, false)
	with, _ := rereads(t, true)
	t.Logf("300 steps over 40 files, %d compactions: %d files read again after a compaction though unchanged without the plot, %d with it",
		compactions, without, with)
	if compactions < 2 || without == 0 {
		t.Errorf("%d compactions, %d re-reads without the plot: the simulation does not test what it says", compactions, without)
	}
	if with != 0 {
		t.Errorf("%d files read again after a compaction though unchanged, want 0", with)
	}
}

// rereads runs the session of TestNoFileIsReadAgainAfterACompaction, the
// model reading the plot when usePlot, and returns the re-reads and the
// compactions.
func rereads(t *testing.T, usePlot bool) (rereads, compactions int) {
	b := newSim(t, strings.Repeat("system prompt. ", 200), 16000)
	reg := testRegistry(t)
	opts := &Options{System: b.s.System, SessionDir: "/s", Budget: NewBudget(b.s.ModelInfo, 0)}
	b.user("bring every file of the project to the new API")
	const files = 40
	last := map[string]uint64{} // the seq at which the session last read or wrote each file
	var compacted uint64        // the seq of the latest compaction
	version := map[string]int{}
	for i := range 300 {
		p := Project(&b.s, reg, opts)
		if p.Compact {
			b.compact(i, p, reg, opts)
			compacted = b.s.LastSeq
			compactions++
			p = Project(&b.s, reg, opts)
		}
		b.add(p.Ledger)
		path := fmt.Sprintf("pkg/f%02d.go", (i*7+i/files)%files)
		content := fmt.Sprintf("%s v%d", path, version[path])
		if !knows(p.Request, path, usePlot) {
			if seq, ok := last[path]; ok && seq < compacted {
				rereads++
			}
			b.fileCall("read_file", path, content+"\n"+output("f", 3000), contract.FileRead, content)
			last[path] = b.s.LastSeq
		}
		if i%5 == 0 {
			version[path]++
			b.fileCall("edit_file", path, "edited "+path, contract.FileWrite, fmt.Sprintf("%s v%d", path, version[path]))
			last[path] = b.s.LastSeq
		}
	}
	return rereads, compactions
}

// knows reports whether the model finds path read and unchanged in req:
// a result of read_file of it in the messages, whole (its own edits after
// it it knows), or its path in the plot's lists of files read or changed,
// when it reads the plot.
func knows(req *contract.ModelRequest, path string, usePlot bool) bool {
	calls := map[string]string{} // intent -> the tool that read or edited path
	known := false
	for i, m := range req.Messages {
		if i == 0 && usePlot {
			if _, p, ok := strings.Cut(m.Text, "[rein: where the work stood at the compaction"); ok {
				for line := range strings.Lines(p) {
					if strings.HasPrefix(line, "Files ") {
						_, list, _ := strings.Cut(line, "): ")
						list, _, _ = strings.Cut(strings.TrimSpace(list), " and ")
						known = known || slices.Contains(strings.Split(list, ", "), path)
					}
				}
			}
		}
		for _, c := range m.ToolCalls {
			var in struct{ Path string }
			if json.Unmarshal(c.Input, &in) == nil && in.Path == path {
				calls[c.IntentID] = c.ToolName
			}
		}
		if r := m.Result; r != nil && calls[r.IntentID] == "read_file" && !strings.HasPrefix(r.Text, "[rein: ") {
			known = true
		}
	}
	return known
}
