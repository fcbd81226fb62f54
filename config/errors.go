package config

import "errors"

// ErrConfigValue is returned for a setting out of its range, whether it
// came from a flag, the environment or the config file.
var ErrConfigValue = errors.New("out of range")
