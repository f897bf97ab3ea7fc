// Command drawn waits until an X window shows more than a plain fill, and prints the
// Unix time in nanoseconds when it first did. scripts/footprint.sh runs it on Carrel's
// window and on the hello-world anchor's once each has mapped: a mapped window may still
// be one colour (the webview's background) for a while, so "drawn" is the moment a
// user first sees the page's text and lines.
//
// Usage: drawn [-colours N] [-timeout D] WINDOW_ID
package main

/*
#cgo pkg-config: x11
#include <stdlib.h>
#include <X11/Xlib.h>
#include <X11/Xutil.h>

// colours counts the distinct pixel values of win on a grid of every step-th pixel,
// up to max; -1 when the window cannot be read (not viewable yet, or gone).
static int colours(Display *d, Window win, int step, int max) {
	XWindowAttributes a;
	if (!XGetWindowAttributes(d, win, &a) || a.map_state != IsViewable) return -1;
	XImage *img = XGetImage(d, win, 0, 0, a.width, a.height, AllPlanes, ZPixmap);
	if (!img) return -1;
	unsigned long seen[256];
	int n = 0;
	for (int y = 0; y < a.height && n < max; y += step) {
		for (int x = 0; x < a.width && n < max; x += step) {
			unsigned long p = XGetPixel(img, x, y);
			int known = 0;
			for (int i = 0; i < n; i++) if (seen[i] == p) { known = 1; break; }
			if (!known) seen[n++] = p;
		}
	}
	XDestroyImage(img);
	return n;
}

static int ignoreErrors(Display *d, XErrorEvent *e) { return 0; }
static void quiet(void) { XSetErrorHandler(ignoreErrors); }
*/
import "C"

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"time"
)

func main() {
	min := flag.Int("colours", 8, "distinct colours that count as drawn (a plain fill has one)")
	timeout := flag.Duration("timeout", 20*time.Second, "give up after")
	flag.Parse()
	id, err := strconv.ParseUint(flag.Arg(0), 0, 64)
	if err != nil || flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: drawn [-colours N] [-timeout D] WINDOW_ID")
		os.Exit(2)
	}
	d := C.XOpenDisplay(nil)
	if d == nil {
		fmt.Fprintln(os.Stderr, "drawn: cannot open the display $DISPLAY")
		os.Exit(1)
	}
	C.quiet()
	deadline := time.Now().Add(*timeout)
	for time.Now().Before(deadline) {
		// Every 4th pixel: the anchor's two lines of text are a few hundred pixels wide.
		if n := int(C.colours(d, C.Window(id), 4, 255)); n >= *min {
			fmt.Println(time.Now().UnixNano())
			return
		}
		time.Sleep(10 * time.Millisecond)
	}
	fmt.Fprintf(os.Stderr, "drawn: window %#x still a plain fill after %s\n", id, *timeout)
	os.Exit(1)
}
