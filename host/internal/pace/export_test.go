package pace

import "time"

// SetTimer replaces the timer p's pauses wait on, so that a test sees a
// pause begin and ends it itself.
func (p *Pacer) SetTimer(f func(d time.Duration) (<-chan time.Time, func() bool)) { p.timer = f }
