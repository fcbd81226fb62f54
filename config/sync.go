package config

import (
	"fmt"
	"strings"
	"time"

	"github.com/mneme-dev/mneme/memory/syncer"
)

// Environment variables for sync and encryption at rest.
const (
	envSyncURL       = "MNEME_SYNC_URL"
	envSyncToken     = "MNEME_SYNC_TOKEN"
	envSyncInterval  = "MNEME_SYNC_INTERVAL"
	envTursoURL      = "TURSO_DATABASE_URL"
	envTursoToken    = "TURSO_AUTH_TOKEN"
	envEncryptionKey = "MNEME_ENCRYPTION_KEY"
)

// SyncSettings is the [sync] table of the config file.
type SyncSettings struct {
	// URL of the libSQL sync server: libsql://DB-ORG.turso.io.
	URL string `toml:"url"`
	// Token authenticates; it is never printed or logged.
	Token string `toml:"token"`
	// Interval between background syncs, e.g. "5m"; "off" turns them off.
	Interval string `toml:"interval"`

	// Every is Interval parsed (negative: off).
	Every time.Duration `toml:"-"`
}

// syncConfig are the config keys for sync and encryption at rest.
type syncConfig struct {
	Sync SyncSettings `toml:"sync"`
	// EncryptionKey encrypts the database file at rest; never printed or logged.
	EncryptionKey string `toml:"encryption_key"`
}

// resolve applies the environment over the file: MNEME_SYNC_* first, then
// TURSO_DATABASE_URL / TURSO_AUTH_TOKEN.
func (c *syncConfig) resolve(getenv func(string) string) error {
	c.Sync.URL = strings.TrimSpace(first(getenv(envSyncURL), getenv(envTursoURL), c.Sync.URL))
	c.Sync.Token = strings.TrimSpace(first(getenv(envSyncToken), getenv(envTursoToken), c.Sync.Token))
	c.EncryptionKey = first(getenv(envEncryptionKey), c.EncryptionKey)
	iv := strings.TrimSpace(first(getenv(envSyncInterval), c.Sync.Interval))
	switch strings.ToLower(iv) {
	case "":
		c.Sync.Every = syncer.DefaultSyncInterval
	case "off", "0", "never":
		c.Sync.Every = -1
	default:
		d, err := time.ParseDuration(iv)
		if err != nil || d < 10*time.Second {
			return fmt.Errorf("sync interval %q: want a duration of at least 10s (e.g. 5m) or \"off\"", iv)
		}
		c.Sync.Every = d
	}
	if c.Sync.URL != "" {
		if _, _, err := syncer.NormalizeSyncURL(c.Sync.URL); err != nil {
			return err
		}
	}
	return nil
}

// CheckSyncInterval checks a [sync] interval the way Load does ("" for the
// default, "off", or a duration of at least 10s).
func CheckSyncInterval(interval string) error {
	probe := syncConfig{Sync: SyncSettings{Interval: interval}}
	return probe.resolve(func(string) string { return "" })
}

// TokenFromEnv is the sync token in the environment: MNEME_SYNC_TOKEN,
// else TURSO_AUTH_TOKEN, as given ("" when neither is set).
func TokenFromEnv(getenv func(string) string) string {
	return first(getenv(envSyncToken), getenv(envTursoToken))
}
