package host

import (
	"context"
	"errors"
	"fmt"

	"github.com/wasmendpoints/endpoints/config"
	"github.com/wasmendpoints/endpoints/storage"
)

// openStore opens the store the options name: the embedder's, one of a
// registered driver (Redis), or the in-memory default.
func (h lifecycle) openStore(ctx context.Context) error {
	ns, err := h.opts.Storage.AppNamespace(h.app)
	if err != nil {
		return err
	}
	h.namespace = ns
	if h.opts.Store != nil {
		h.store = h.opts.Store
		return nil
	}
	h.ownStore = true
	if driver := h.opts.Storage.Driver; driver != "" && driver != config.DriverMemory {
		// A registered driver (storage.Register): the program links only
		// those it imports, such as storage/redis.
		s, err := storage.Open(ctx, driver, h.opts.Storage.URL, h.namespace)
		if err != nil {
			return fmt.Errorf("%s: /storage: %w", config.File, err)
		}
		h.store = s
		if p, ok := s.(storage.Pinger); ok {
			switch err := p.Ping(ctx); {
			case errors.Is(err, storage.ErrUnavailable):
				h.logger.Warn("the store does not answer; idempotent endpoints answer 503 and the key-value store fails until it does", "driver", driver, "error", err)
			case err != nil:
				h.logger.Warn("the store answers but cannot serve this app; /readyz stays not ready until it can", "driver", driver, "error", err)
			}
		}
		return nil
	}
	h.store = storage.NewMemory(h.opts.Storage.MemoryOptions())
	return nil
}

func (h lifecycle) closeStore() {
	if h.ownStore && h.store != nil {
		if err := h.store.Close(); err != nil {
			h.logger.Warn("closing the store failed", "error", err)
		}
		h.ownStore = false // closed once
	}
}
