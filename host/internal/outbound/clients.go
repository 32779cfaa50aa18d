package outbound

import "sync"

// Clients keeps the client of the outbound settings in effect, so that a
// reload that leaves them alone keeps its connections and per-host counts.
// Its zero value holds none; its methods may be called from any
// goroutine.
type Clients struct {
	mu  sync.Mutex
	c   *Client
	key string // identifies the settings that made c
}

// Get returns the client of the settings key identifies: the one it holds
// when key made it, else New(cfg), which replaces it (the old one's
// requests in flight finish; its idle connections close). key must change
// whenever cfg does: the allowed hosts as listed, the CA file's content,
// the per-host bound.
func (cs *Clients) Get(key string, cfg Config) (*Client, error) {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.c != nil && cs.key == key {
		return cs.c, nil
	}
	c, err := New(cfg)
	if err != nil {
		return nil, err
	}
	if cs.c != nil {
		cs.c.Close()
	}
	cs.c, cs.key = c, key
	return c, nil
}

// Close closes the idle connections of the client it holds, when the host
// closes.
func (cs *Clients) Close() {
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.c != nil {
		cs.c.Close()
	}
}
