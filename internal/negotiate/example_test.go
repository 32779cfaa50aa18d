package negotiate_test

import (
	"fmt"

	"github.com/wasmendpoints/endpoints/internal/negotiate"
)

func ExampleChoose() {
	offers := []string{"image/png", "image/svg+xml"} // declaration order
	for _, accept := range []string{
		"", // no Accept header: the first offer
		"image/svg+xml, */*;q=0.5",
		"image/png;q=0, */*", // q=0 refuses image/png
		"text/html",          // nothing acceptable: answer 406
	} {
		chosen, ok := negotiate.Choose(accept, offers)
		fmt.Printf("%q -> %q %v\n", accept, chosen, ok)
	}
	// Output:
	// "" -> "image/png" true
	// "image/svg+xml, */*;q=0.5" -> "image/svg+xml" true
	// "image/png;q=0, */*" -> "image/svg+xml" true
	// "text/html" -> "" false
}

func ExampleParse() {
	ranges, err := negotiate.Parse("text/html, text/plain;format=flowed;q=0.7, */*;q=0.1")
	if err != nil {
		panic(err)
	}
	for _, r := range ranges {
		fmt.Println(r.Type, r.Subtype, r.Params, r.Q)
	}
	_, err = negotiate.Parse("text/html;q=1.5")
	fmt.Println(err)
	// Output:
	// text html map[] 1
	// text plain map[format:flowed] 0.7
	// * * map[] 0.1
	// negotiate: malformed Accept header "text/html;q=1.5": byte 12: want a weight from 0 to 1 with at most three decimals, such as q=0.8
}
