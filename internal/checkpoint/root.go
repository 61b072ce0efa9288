package checkpoint

// Root returns the workspace the store's snapshots are of.
func (s *Store) Root() string { return s.root }
