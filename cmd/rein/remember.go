package main

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"iter"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/rein-agent/rein/internal/atomicfile"
	"github.com/rein-agent/rein/internal/catalog"
	"github.com/rein-agent/rein/internal/contract"
	"github.com/rein-agent/rein/internal/provider"
)

// stateFile is the path of name in rein's state directory
// ($XDG_STATE_HOME/rein, else ~/.local/state/rein, beside the sessions),
// where rein remembers what it found out about the machine and the
// servers it talks to; "" when neither variable says where that is.
// Sandboxed commands cannot read or write it (the sandbox hides the
// directory).
func stateFile(name string) string {
	if d := os.Getenv("XDG_STATE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "rein", name)
	}
	if home, err := os.UserHomeDir(); err == nil && filepath.IsAbs(home) {
		return filepath.Join(home, ".local", "state", "rein", name)
	}
	return ""
}

// windowsFile is the state file of the windows servers said they serve.
const windowsFile = "windows.json"

// windowTTL is how long a server's answer about its window is trusted:
// a server may be restarted with another context length (vLLM's
// --max-model-len, Ollama's num_ctx or OLLAMA_CONTEXT_LENGTH), which
// nothing else tells; a context_length error forgets it sooner.
const windowTTL = 12 * time.Hour

// windowsLimit bounds what is read of the windows file.
const windowsLimit = 1 << 20

// windowEntry is what one server said of one model's window: Window 0
// when it did not say (rein then assumes the conservative window).
type windowEntry struct {
	Window    int       `json:"window,omitempty"`
	MaxOutput int       `json:"max_output,omitempty"`
	At        time.Time `json:"at"`
}

// windowsMu serialises this process's reads and writes of the file; two
// reins writing at once each write a whole file (atomicfile), and the
// later one's wins: at worst a server is asked again.
var windowsMu sync.Mutex

// windowKey is the entry of model at baseURL (shown without credentials,
// as the log keeps it).
func windowKey(baseURL, model string) string {
	return recordable(baseURL, "") + " " + model
}

// readWindows returns the entries of file; a missing, unreadable or
// damaged file is none (the servers are asked again).
func readWindows(file string) map[string]windowEntry {
	f, err := os.Open(file)
	if err != nil {
		return nil
	}
	defer func() { _ = f.Close() }() // read only
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	data, err := io.ReadAll(io.LimitReader(f, windowsLimit))
	if err != nil {
		return nil
	}
	var entries map[string]windowEntry
	if json.Unmarshal(data, &entries) != nil {
		return nil
	}
	return entries
}

// changeWindows applies change to file's entries and writes them back,
// dropping those past windowTTL; an error is ignored (the next start asks
// the server again).
func changeWindows(file string, change func(map[string]windowEntry)) {
	windowsMu.Lock()
	defer windowsMu.Unlock()
	entries := readWindows(file)
	if entries == nil {
		entries = map[string]windowEntry{}
	}
	change(entries)
	for k, e := range entries {
		if time.Since(e.At) > windowTTL || e.Window < 0 || e.MaxOutput < 0 {
			delete(entries, k)
		}
	}
	data, err := json.MarshalIndent(entries, "", "  ")
	if err != nil || os.MkdirAll(filepath.Dir(file), 0o700) != nil {
		return
	}
	_ = atomicfile.Write(file, data, 0o600) // a cache: an error costs one probe
}

// rememberedWindow is what the server at baseURL said of model's window
// within windowTTL, and whether it said anything then: ok false when it
// must be asked.
func rememberedWindow(file, baseURL, model string) (catalog.Model, bool, bool) {
	if file == "" {
		return catalog.Model{}, false, false
	}
	windowsMu.Lock()
	e, found := readWindows(file)[windowKey(baseURL, model)]
	windowsMu.Unlock()
	age := time.Since(e.At)
	if !found || age < 0 || age > windowTTL || e.Window < 0 || e.MaxOutput < 0 {
		return catalog.Model{}, false, false
	}
	if e.Window == 0 {
		return catalog.Model{}, false, true
	}
	return catalog.Model{ID: model, ContextWindow: e.Window, MaxOutput: e.MaxOutput, Source: contract.InfoServer}, true, true
}

// probeRemembered is catalog.Probe's answer for model at baseURL, asked
// of the server only when file does not hold one from the last
// windowTTL; an answer asked is written there, a window or that the
// server does not say. served reports whether the server says.
func probeRemembered(ctx context.Context, file string, ask func(context.Context) (catalog.Model, error), baseURL, model string) (catalog.Model, bool) {
	if m, served, ok := rememberedWindow(file, baseURL, model); ok {
		return m, served
	}
	m, err := ask(ctx)
	if file == "" || errors.Is(err, context.Canceled) {
		return m, err == nil
	}
	entry := windowEntry{At: time.Now()}
	if err == nil {
		entry.Window, entry.MaxOutput = m.ContextWindow, m.MaxOutput
	}
	changeWindows(file, func(entries map[string]windowEntry) { entries[windowKey(baseURL, model)] = entry })
	return m, err == nil
}

// forgetWindow drops what file remembers of model at baseURL.
func forgetWindow(file, baseURL, model string) {
	changeWindows(file, func(entries map[string]windowEntry) { delete(entries, windowKey(baseURL, model)) })
}

// forgetting is a provider whose context_length errors make rein forget
// what the server said of the model's window: a window rein took from it
// was too large, so the server changed, and the next start asks it again.
type forgetting struct {
	provider.Provider
	forget func()
}

// Stream yields what the provider yields, as it yields it.
func (f forgetting) Stream(ctx context.Context, req *contract.ModelRequest) iter.Seq2[contract.ModelEvent, error] {
	return func(yield func(contract.ModelEvent, error) bool) {
		for ev, err := range f.Provider.Stream(ctx, req) {
			if perr, ok := errors.AsType[*contract.ProviderError](err); ok && perr.Kind == contract.KindContextLength {
				f.forget()
			}
			if !yield(ev, err) {
				return
			}
		}
	}
}
