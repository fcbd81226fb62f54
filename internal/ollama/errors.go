package ollama

import "errors"

// Errors of choosing a model.
var (
	// ErrModelNotFound means the server does not have the model.
	ErrModelNotFound = errors.New("model not found")
	// ErrNoModel means no chat model is configured or installed.
	ErrNoModel = errors.New("no chat model")
	// ErrRegistryURL means ollama_registry is neither "off" nor an http(s) URL.
	ErrRegistryURL = errors.New("not a registry URL")
	// ErrNotOllama means the server at the address answered, but not as
	// Ollama does (another program on the port, a proxy).
	ErrNotOllama = errors.New("not an Ollama server")
)
