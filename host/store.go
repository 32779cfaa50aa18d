package host

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/wasmendpoints/endpoints/storage"
	"github.com/wasmendpoints/endpoints/storage/redis"
)

// openStore opens the store the options name: the embedder's, Redis, or
// the in-memory default.
func (h *Host) openStore(ctx context.Context) error {
	h.namespace = h.opts.Storage.Namespace
	if h.namespace == "" {
		abs, err := filepath.Abs(h.app)
		if err != nil {
			return err
		}
		h.namespace = filepath.Base(abs)
	}
	if h.opts.Store != nil {
		h.store = h.opts.Store
		return nil
	}
	h.ownStore = true
	switch h.opts.Storage.Driver {
	case DriverRedis:
		s, err := redis.New(h.opts.Storage.URL, h.namespace)
		if err != nil {
			return fmt.Errorf("%s: /storage: %w", AppConfigFile, err)
		}
		h.store = s
		if err := s.Ping(ctx); err != nil {
			h.logger.Warn("Redis does not answer; idempotent endpoints answer 503 and the key-value store fails until it does", "error", err)
		}
	default:
		h.store = storage.NewMemory(storage.MemoryOptions{MaxBytes: h.opts.Storage.MaxBytes})
	}
	return nil
}

func (h *Host) closeStore() {
	if h.ownStore && h.store != nil {
		if err := h.store.Close(); err != nil {
			h.logger.Warn("closing the store failed", "error", err)
		}
		h.ownStore = false // closed once
	}
}
