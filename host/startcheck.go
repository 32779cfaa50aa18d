package host

import (
	"os"

	"github.com/wasmendpoints/endpoints/config"
)

// checkStart checks the settings of the first load of the app before it
// starts (which loads the route modules, saying so through
// Options.Progress, and migrates the databases): a setting that fails the
// start fails it first, naming the setting and the override that set it.
// They are those the load resolves (loadSide.Settings: the variables, the
// outbound CA file, the docs page's assets directory, the rate limits'
// store, and in Production the key material of every scheme of
// "security", checkSecurityKeys). What needs the route modules (a scheme
// a route requires that nothing verifies, patterns that match no route)
// is still found by the load.
//
// The settings made here are dropped; the outbound client they made is
// the one the load's settings find again (outbound.Clients).
func (h loadSide) checkStart() error {
	_, err := h.Settings(h.config, nil)
	return err
}

// checkSecurityKeys checks, in Production, the key material of every
// scheme of cfg's "security", whether or not a route requires it
// (config.App.CheckSecurityKeys): a key set file, a secret's environment
// variable or file unless the host only reads the app (SkipVariables), a
// development key set deployed without its devKey. loadSide.Settings
// calls it, so that a start and a reload refuse the same settings: a
// reload that took an endpoints.json whose start it would refuse left
// the next restart to fail.
func (h loadSide) checkSecurityKeys(cfg *config.App) error {
	if h.opts.Mode != Production {
		// Development serves what it can: a route whose scheme cannot
		// be verified is left out, named, and the others serve.
		return nil
	}
	getenv := os.Getenv
	if h.opts.SkipVariables {
		getenv = nil
	}
	return cfg.CheckSecurityKeys(h.app, getenv, !h.opts.SkipVariables)
}
