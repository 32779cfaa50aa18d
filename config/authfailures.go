package config

import "time"

// AuthFailures is the "authFailures" member of endpoints.json: how many
// failed credentials the host lets a client address, and a user name
// (of basic credentials), send before it answers 429 without verifying
// (docs/spec.md §12). Each is a token bucket of that many attempts,
// earned back over Window. The zero value is every default.
//
//	{"perAddress": 10, "perUser": 50, "window": "1m"}
//
// # Notes
//
//   - An attempt is spent before the credential is verified and given
//     back when it verifies or none was sent, so the budget also bounds
//     the verifications (bcrypt) a client can have in flight.
//   - A user name's budget is shared by every client: past it, the name
//     is refused for a while whoever sends it. Keep PerUser above
//     PerAddress.
//   - The counts live in each host's memory, and survive reloads that do
//     not change this member.
type AuthFailures struct {
	// PerAddress is the failures a client address may send in a row
	// (IPv6: a /64). If zero, [DefaultAuthFailuresPerAddress].
	PerAddress int `json:"perAddress,omitzero"`
	// PerUser is the failures a user name may be sent with in a row,
	// from any address. If zero, [DefaultAuthFailuresPerUser].
	PerUser int `json:"perUser,omitzero"`
	// Window is how long a whole budget takes to be earned back. If
	// zero, [DefaultAuthFailuresWindow].
	Window Duration `json:"window,omitzero"`
}

// Defaults of [AuthFailures].
const (
	// DefaultAuthFailuresPerAddress is the default of
	// [AuthFailures.PerAddress]: 10.
	DefaultAuthFailuresPerAddress = 10
	// DefaultAuthFailuresPerUser is the default of
	// [AuthFailures.PerUser]: 50.
	DefaultAuthFailuresPerUser = 50
	// DefaultAuthFailuresWindow is the default of
	// [AuthFailures.Window]: a minute.
	DefaultAuthFailuresWindow = time.Minute
)

// WithDefaults returns a with its zero fields set to their defaults.
func (a AuthFailures) WithDefaults() AuthFailures {
	if a.PerAddress == 0 {
		a.PerAddress = DefaultAuthFailuresPerAddress
	}
	if a.PerUser == 0 {
		a.PerUser = DefaultAuthFailuresPerUser
	}
	if a.Window == 0 {
		a.Window = Duration(DefaultAuthFailuresWindow)
	}
	return a
}

// check refuses negative budgets.
func (a AuthFailures) check(file string) error {
	switch {
	case a.PerAddress < 0:
		return badSetting(file, "/authFailures/perAddress", "must be positive, got %d", a.PerAddress)
	case a.PerUser < 0:
		return badSetting(file, "/authFailures/perUser", "must be positive, got %d", a.PerUser)
	}
	return nil
}
