package session

// Summarize is what List shows of session id: its summary from the log,
// running when a process holds it.
func (s *Store) Summarize(id string) (Summary, error) {
	sum, err := s.summarize(id)
	if err == nil {
		sum.live(s.Dir(id))
	}
	return sum, err
}
