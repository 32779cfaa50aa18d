//go:build !wasip1

package cell

import "sync/atomic"

// Pointer is a *T read and written atomically. The zero value holds nil.
type Pointer[T any] struct {
	p atomic.Pointer[T]
}

// Load returns the pointer held.
func (c *Pointer[T]) Load() *T { return c.p.Load() }

// Store replaces the pointer held with p.
func (c *Pointer[T]) Store(p *T) { c.p.Store(p) }

// Swap replaces the pointer held with p and returns the one it held.
func (c *Pointer[T]) Swap(p *T) *T { return c.p.Swap(p) }
