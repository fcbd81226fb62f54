package ollama

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// ChooseChat picks the chat model: the configured one (an error wrapping
// ErrModelNotFound when it is not installed), else the first installed
// model with tools, else any chat model (ErrNoModel when there is none).
// why says which rule chose it.
func ChooseChat(models []ModelInfo, configured, host string) (name, why string, err error) {
	if configured != "" {
		for _, m := range models {
			if SameModel(m.Name, configured) {
				return configured, "configured", nil
			}
		}
		return configured, "configured", fmt.Errorf("%w: %q is not installed in Ollama at %s; run `ollama pull %s`",
			ErrModelNotFound, configured, host, configured)
	}
	for _, m := range models {
		if m.CanChat() && m.Has(CapTools) {
			return m.Name, "first installed model with tools", nil
		}
	}
	for _, m := range models {
		if m.CanChat() {
			return m.Name, "first installed chat model (no model with tools)", nil
		}
	}
	return "", "", fmt.Errorf("%w installed in Ollama at %s: run `ollama pull %s`", ErrNoModel, host, DefaultChatModel)
}

// ChooseEmbed picks the configured embedding model if it is installed,
// else the first installed model that makes embeddings. Without one,
// search is keyword-only; note says why in words.
func ChooseEmbed(models []ModelInfo, configured string) (m ModelInfo, note string) {
	if configured != "" {
		for _, m := range models {
			switch {
			case !SameModel(m.Name, configured):
			case len(m.Capabilities) > 0 && !m.Has(CapEmbedding):
				// Ollama embeds with any model, but a chat model's vectors
				// find little by meaning.
				return m, fmt.Sprintf("configured; it is not an embedding model (it reports: %s), so search by meaning may find little: an embedding model such as %s does better",
					strings.Join(m.Capabilities, ", "), DefaultEmbedModel)
			default:
				return m, "configured"
			}
		}
		return ModelInfo{}, fmt.Sprintf("embedding model %q is not installed: search is keyword-only until you run `ollama pull %s`", configured, configured)
	}
	for _, m := range models {
		if m.CanEmbed() {
			return m, "first installed embedding model"
		}
	}
	return ModelInfo{}, fmt.Sprintf("no embedding model installed: search is keyword-only; for search by meaning run `ollama pull %s`", DefaultEmbedModel)
}

// RegistryOff as the registry skips the check of the model library.
const RegistryOff = "off"

// registryTimeout bounds the check of the model library.
const registryTimeout = 2500 * time.Millisecond

// CheckRegistryURL validates a registry setting: RegistryOff, or an
// http(s) URL.
func CheckRegistryURL(s string) error {
	if s == RegistryOff {
		return nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%w: want an http(s) URL, or %q", ErrRegistryURL, RegistryOff)
	}
	return nil
}

// RegistryReachable checks whether the model library at registry answers
// at all (any HTTP status will do), dialling with dial. It only speaks for
// an Ollama on this machine, which shares its network: for another host,
// or with the check off, it returns nil.
func RegistryReachable(ctx context.Context, registry, ollamaHost string, dial func(ctx context.Context, network, addr string) (net.Conn, error)) error {
	if registry == RegistryOff || !IsLoopback(ollamaHost) {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, registryTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodHead, strings.TrimRight(registry, "/")+"/v2/", nil)
	if err != nil {
		return err
	}
	resp, err := (&http.Client{Transport: &http.Transport{Proxy: http.ProxyFromEnvironment, DialContext: dial}}).Do(req)
	if err != nil {
		return err
	}
	resp.Body.Close()
	return nil
}

// IsLoopback reports whether an Ollama address is on this machine.
func IsLoopback(host string) bool {
	u, err := url.Parse(host)
	if err != nil {
		return false
	}
	h := u.Hostname()
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && (ip.IsLoopback() || ip.IsUnspecified())
}
