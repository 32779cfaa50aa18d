package auth

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// refuseDeployedDevKeys fails a production start whose jwt scheme still
// verifies with the development key set: the scheme names a devKey that is
// not in the app (an image built without it, as deploy/Dockerfile's is,
// since anyone with the app's repository has it) while its keys come from a
// file of the app, the devKey's public half. The error says what to give
// instead. With the devKey file present (a developer's checkout) the scheme
// is left alone, so `endpoints serve` works as it did on a laptop.
func refuseDeployedDevKeys(member string, c *JWTConfig, env Env) error {
	if err := deployedDevKeys(member, c, env); err != nil {
		return fmt.Errorf("%s: %w", member, err)
	}
	return nil
}

// deployedDevKeys is refuseDeployedDevKeys' error without the member
// before it, though it names it (what to give instead).
func deployedDevKeys(member string, c *JWTConfig, env Env) error {
	if !env.Production || c.DevKey == "" || c.JWKS == "" {
		return nil
	}
	if err := insideApp(c.DevKey); err != nil {
		return fmt.Errorf("devKey: %v", err)
	}
	if _, err := os.Stat(filepath.Join(env.AppDir, filepath.FromSlash(c.DevKey))); !errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	return fmt.Errorf("the development signing key %[2]s is not in the app, so this is a deployment, and %[3]s is its development key set: "+
		"tokens signed with %[2]s (committed with the app, so anyone can mint them) would be accepted. "+
		"Give this deployment its own keys: a %[4]s whose %[1]s has no \"devKey\" and takes its keys from your identity provider "+
		"(\"jwksUrl\": \"https://...\"), from a key set file mounted from a secret (\"jwks\"), or from an HS256 secret "+
		"(\"secret\": {\"file\": \"/run/secrets/NAME\"} or {\"env\": \"NAME\"}); set it in the file or whole in ENDPOINTS_SECURITY (README, \"Deploying\")",
		member, c.DevKey, c.JWKS, "endpoints.json")
}
