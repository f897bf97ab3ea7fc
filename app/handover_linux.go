package app

import (
	"encoding/json"
	"os"
	"strings"

	"github.com/godbus/dbus/v5"
	"github.com/wailsapp/wails/v2/pkg/options"
)

// HandOver gives files (absolute paths; none just brings the window forward) to a Carrel
// window this user already has open, and reports whether one took them. It speaks to the
// D-Bus object Wails' single-instance lock exports in the running window. Wails makes the
// same check itself, but only once GTK and its window are set up, which a second launch
// need not pay for; and the library, opened once the page has loaded, must never be opened,
// let alone recovered, by a second process while the first is writing to it.
func HandOver(files []string) bool {
	conn, err := dbus.ConnectSessionBus()
	if err != nil {
		return false // no session bus: no window can be reached, so be the first
	}
	defer conn.Close()
	id := "wails_app_" + strings.NewReplacer("-", "_", ".", "_").Replace(SingleInstanceID)
	name := "org." + id + ".SingleInstance"
	wd, _ := os.Getwd()
	msg, _ := json.Marshal(options.SecondInstanceData{Args: files, WorkingDirectory: wd})
	call := conn.Object(name, dbus.ObjectPath("/org/"+id+"/SingleInstance")).
		Call(name+".SendMessage", dbus.FlagNoAutoStart, string(msg))
	return call.Err == nil
}
