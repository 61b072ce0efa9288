package composer

import "slices"

// recall is a walk through the history with Up and Down.
type recall struct {
	index   int      // the entry shown; -1 when not walking, len(entries) for the draft
	entries []string // the history when the walk began, oldest first
	draft   string   // what was being typed when the walk began
	pastes  []paste  // the draft's pastes
}

// older shows the entry before the one shown (the newest, when the draft
// is), keeping the draft; it reports whether it handled the key.
func (c *Composer) older() bool {
	if c.history == nil {
		return false
	}
	if c.recall.index < 0 {
		entries := c.history.Entries()
		if len(entries) == 0 {
			return false
		}
		c.recall = recall{index: len(entries), entries: entries, draft: c.ta.Value(), pastes: c.pastes}
	}
	if c.recall.index == 0 {
		return true
	}
	c.recall.index--
	c.show(c.recall.entries[c.recall.index], slices.Clone(c.sent[c.recall.entries[c.recall.index]]))
	return true
}

// newer shows the entry after the one shown, and the draft past the
// newest; it reports whether it handled the key (false when not walking).
func (c *Composer) newer() bool {
	if c.recall.index < 0 {
		return false
	}
	c.recall.index++
	if c.recall.index >= len(c.recall.entries) {
		r := c.recall
		c.recall = recall{index: -1}
		c.show(r.draft, r.pastes)
		return true
	}
	c.show(c.recall.entries[c.recall.index], slices.Clone(c.sent[c.recall.entries[c.recall.index]]))
	return true
}

// show puts text in the input, the cursor at its end, with the pastes its
// placeholders stand for.
func (c *Composer) show(text string, pastes []paste) {
	c.ta.SetValue(text)
	c.settle()
	c.pastes, c.pasteSeq = pastes, len(pastes)
}
