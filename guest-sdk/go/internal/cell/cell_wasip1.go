//go:build wasip1

package cell

// Pointer is a *T read and written whole. The zero value holds nil.
type Pointer[T any] struct {
	p *T
}

// Load returns the pointer held.
func (c *Pointer[T]) Load() *T { return c.p }

// Store replaces the pointer held with p.
func (c *Pointer[T]) Store(p *T) { c.p = p }

// Swap replaces the pointer held with p and returns the one it held.
func (c *Pointer[T]) Swap(p *T) *T {
	old := c.p
	c.p = p
	return old
}
