package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/gorilla/websocket"
)

// browser is a headless Chromium this test started, driven over the
// DevTools protocol: one WebSocket to the browser, pages attached to it
// in flat mode (each command carries its page's session).
type browser struct {
	conn   *websocket.Conn
	next   int
	thrown []string // exceptions the pages threw
}

// launch starts Chromium headless, with a profile of its own, and
// connects to it; the test's cleanup ends it (its process group, which
// holds the renderers it started).
func launch(t *testing.T, chromium string) *browser {
	t.Helper()
	profile := t.TempDir()
	cmd := exec.Command(chromium, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
		"--disable-background-networking", "--disable-component-update", "--disable-sync", "--user-data-dir="+profile,
		"--remote-debugging-port=0", "about:blank")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() {
		cmd.Wait()
		close(exited)
	}()
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
	})
	// Chromium writes the port it listens on, and its browser target's
	// path, into the profile once it listens.
	var port []string
	for deadline := time.Now().Add(30 * time.Second); ; {
		b, err := os.ReadFile(filepath.Join(profile, "DevToolsActivePort"))
		if port = strings.Fields(string(b)); err == nil && len(port) == 2 {
			break
		}
		select {
		case <-exited:
			t.Fatalf("chromium exited: %v\n%s", cmd.ProcessState, stderr.String())
		case <-time.After(50 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("chromium did not open its DevTools port in 30 s\n%s", stderr.String())
		}
	}
	conn, _, err := websocket.DefaultDialer.Dial("ws://127.0.0.1:"+port[0]+port[1], nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	return &browser{conn: conn}
}

// call sends a command (to a page's session, or to the browser for "")
// and decodes its result into result.
func (b *browser) call(session, method string, params, result any) error {
	b.next++
	id := b.next
	msg := map[string]any{"id": id, "method": method, "params": params}
	if session != "" {
		msg["sessionId"] = session
	}
	b.conn.SetWriteDeadline(time.Now().Add(10 * time.Second))
	if err := b.conn.WriteJSON(msg); err != nil {
		return err
	}
	for {
		var reply struct {
			ID     int             `json:"id"`
			Method string          `json:"method"`
			Params json.RawMessage `json:"params"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		b.conn.SetReadDeadline(time.Now().Add(30 * time.Second))
		if err := b.conn.ReadJSON(&reply); err != nil {
			return err
		}
		switch {
		case reply.Method == "Runtime.exceptionThrown":
			b.thrown = append(b.thrown, string(reply.Params))
		case reply.ID != id:
			// another event
		case reply.Error != nil:
			return fmt.Errorf("%s: %s", method, reply.Error.Message)
		case result != nil:
			return json.Unmarshal(reply.Result, result)
		default:
			return nil
		}
	}
}

// open opens url in a new page and returns the page's session.
func (b *browser) open(url string) (string, error) {
	var target struct {
		TargetID string `json:"targetId"`
	}
	if err := b.call("", "Target.createTarget", map[string]any{"url": url}, &target); err != nil {
		return "", err
	}
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	if err := b.call("", "Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached); err != nil {
		return "", err
	}
	return attached.SessionID, b.call(attached.SessionID, "Runtime.enable", map[string]any{}, nil)
}

// eval evaluates a JavaScript expression in the page and decodes its
// value (JSON) into v.
func (b *browser) eval(session, expr string, v any) error {
	var res struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	if err := b.call(session, "Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true}, &res); err != nil {
		return err
	}
	if res.ExceptionDetails != nil {
		return errors.New("evaluate: " + res.ExceptionDetails.Text + " " + res.ExceptionDetails.Exception.Description)
	}
	return json.Unmarshal(res.Result.Value, v)
}
