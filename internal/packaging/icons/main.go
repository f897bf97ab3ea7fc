// Command icons writes the app icon in the freedesktop hicolor sizes, for the Linux
// packages: OUT/NxN/apps/carrel.png from one large square PNG.
//
//	go run ./internal/packaging/icons -src build/appicon.png -out build/dist/linux/icons
package main

import (
	"flag"
	"fmt"
	"image"
	"image/png"
	"log"
	"os"
	"path/filepath"

	"golang.org/x/image/draw"
)

// Sizes are the hicolor theme's fixed sizes a launcher, a file manager and a panel ask for.
var Sizes = []int{16, 22, 24, 32, 48, 64, 128, 256, 512}

func main() {
	src := flag.String("src", "build/appicon.png", "square PNG, at least 512 pixels")
	out := flag.String("out", "build/dist/linux/icons", "folder for NxN/apps/NAME.png")
	name := flag.String("name", "carrel", "icon name (the desktop entry's Icon=)")
	flag.Parse()
	if err := run(*src, *out, *name); err != nil {
		log.Fatal(err)
	}
}

func run(src, out, name string) error {
	f, err := os.Open(src)
	if err != nil {
		return err
	}
	defer f.Close()
	img, err := png.Decode(f)
	if err != nil {
		return fmt.Errorf("decode %s: %w", src, err)
	}
	b := img.Bounds()
	if b.Dx() != b.Dy() || b.Dx() < Sizes[len(Sizes)-1] {
		return fmt.Errorf("%s is %dx%d: want a square of at least %d pixels", src, b.Dx(), b.Dy(), Sizes[len(Sizes)-1])
	}
	for _, n := range Sizes {
		dst := image.NewNRGBA(image.Rect(0, 0, n, n))
		// Catmull-Rom keeps small sizes sharp where bilinear would blur the outline.
		draw.CatmullRom.Scale(dst, dst.Bounds(), img, b, draw.Src, nil)
		dir := filepath.Join(out, fmt.Sprintf("%dx%d", n, n), "apps")
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if err := writePNG(filepath.Join(dir, name+".png"), dst); err != nil {
			return err
		}
	}
	return nil
}

func writePNG(path string, img image.Image) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(f, img); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	return f.Close()
}
