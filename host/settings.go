package host

import (
	"context"
	"fmt"
)

// settings are what endpoints.json (merged with the embedder's Options)
// decides for requests: limits, answer checking, idempotency tuning and
// the OpenAPI routes. A table carries its settings, so a reload that
// changes endpoints.json swaps them together with the routes.
type settings struct {
	opts    Options
	config  *AppConfig
	checked bool         // answers are checked against the contract
	served  bool         // the schema route is served
	docPath string       // the schema route
	docs    *docs        // the docs page, nil when off or not served
	server  ServerConfig // with the defaults filled in
}

// newSettings derives the settings of cfg; the runtime declaration's
// response-validation policy applies when neither the options nor cfg set
// one.
func (h *Host) newSettings(cfg *AppConfig, rm *runtimeModule) (*settings, error) {
	s := &settings{opts: h.base.merge(cfg), config: cfg}
	if s.opts.ResponseValidation == "" && rm != nil {
		s.opts.ResponseValidation = ResponseValidation(rm.decl.ResponseValidation)
	}
	s.checked = s.opts.checksResponses()
	s.server = s.opts.Server.withDefaults()
	s.served, s.docPath = s.openAPIServed(), s.openAPIPath()
	if s.served {
		var err error
		if s.docs, err = h.newDocs(s); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// restartOnly names what changed between two configurations that only a
// restart applies: the engine's memory cap, pool sizes and the store.
func restartOnly(old, cur *AppConfig) []string {
	var out []string
	if old.Limits.MemoryBytes != cur.Limits.MemoryBytes {
		out = append(out, "limits.memoryBytes")
	}
	if old.Limits.Instances != cur.Limits.Instances {
		out = append(out, "limits.instances")
	}
	if old.Limits.LoadTimeout != cur.Limits.LoadTimeout {
		out = append(out, "limits.loadTimeout")
	}
	if old.Limits.InstanceIdleTimeout != cur.Limits.InstanceIdleTimeout {
		out = append(out, "limits.instanceIdleTimeout")
	}
	if old.Storage != cur.Storage {
		out = append(out, "storage")
	}
	return out
}

// reloadConfig reads endpoints.json for a reload: the new configuration
// when it changed and is valid, the previous one otherwise.
func (h *Host) reloadConfig(_ context.Context, prev *table, t *table, report *ReloadReport) *AppConfig {
	data, hash, err := h.readHashed(AppConfigFile)
	if err != nil {
		t.problems = append(t.problems, err)
		report.Problems = append(report.Problems, err)
		t.appConfigHash = prev.appConfigHash
		return prev.set.config
	}
	t.appConfigHash = hash
	if hash == prev.appConfigHash {
		return prev.set.config
	}
	cfg := &AppConfig{}
	if data != nil {
		if cfg, err = ParseAppConfig(AppConfigFile, data); err != nil {
			t.problems = append(t.problems, err)
			report.Problems = append(report.Problems, err)
			t.appConfigHash = prev.appConfigHash
			return prev.set.config
		}
	}
	report.note(AppConfigFile, data != nil, prev.set.config != nil)
	if keys := restartOnly(prev.set.config, cfg); len(keys) > 0 {
		h.logger.Warn(fmt.Sprintf("%s changed %v: restart to apply those; the rest applies now", AppConfigFile, keys))
	}
	return cfg
}
