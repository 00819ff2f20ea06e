package store

// CopiedByChanges returns how many records m's last Changes copied under
// its lock (tests check that unchanged ones are not).
func CopiedByChanges(m *Memory) int {
	m.mu.RLock()
	defer m.mu.RUnlock()
	return m.track.copied
}
