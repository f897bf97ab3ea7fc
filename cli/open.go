package cli

import (
	"fmt"
	"html"
	"os"
	"os/exec"
	"runtime"
)

// openBrowser opens link in the default browser without putting it on a command line,
// where any local user could read the key in it (ps): the browser is given a private
// file (0600) that moves on to the link, as Jupyter does.
// It returns the file, for the caller to remove when the key is dead.
func openBrowser(link string) (string, error) {
	f, err := os.CreateTemp("", "carrel-open-*.html")
	if err != nil {
		return "", fmt.Errorf("write the page that opens Carrel: %w", err)
	}
	page := `<!doctype html><meta charset=utf-8><meta http-equiv="refresh" content="0;url=` + html.EscapeString(link) + `"><title>Carrel</title><a href="` + html.EscapeString(link) + `">Open Carrel</a>`
	_, err = f.WriteString(page)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("write the page that opens Carrel: %w", err)
	}
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", f.Name())
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", f.Name())
	default:
		cmd = exec.Command("xdg-open", f.Name())
	}
	if err := cmd.Start(); err != nil {
		os.Remove(f.Name())
		return "", err
	}
	go cmd.Wait()
	return f.Name(), nil
}
