package queryobject

import (
	"reflect"
	"testing"
)

func TestGather(t *testing.T) {
	set := Set{
		{Name: "filter", Style: Form, Explode: true, Members: []string{"color", "size"}},
		{Name: "pick", Style: Form, Members: []string{"color"}},
		{Name: "deep", Style: DeepObject, Explode: true},
	}
	tests := []struct {
		name    string
		in      map[string][]string
		want    map[string]map[string][]string
		left    map[string][]string // what Gather leaves in the query
		wantErr string
	}{
		{name: "exploded members are claimed, others left",
			in:   map[string][]string{"color": {"red"}, "size": {"2"}, "limit": {"5"}},
			want: map[string]map[string][]string{"filter": {"color": {"red"}, "size": {"2"}}},
			left: map[string][]string{"limit": {"5"}}},
		{name: "a repeated member keeps its values",
			in:   map[string][]string{"size": {"1", "2"}},
			want: map[string]map[string][]string{"filter": {"size": {"1", "2"}}},
			left: map[string][]string{}},
		{name: "form without explode reads pairs",
			in:   map[string][]string{"pick": {"color,red,shape,round"}},
			want: map[string]map[string][]string{"pick": {"color": {"red"}, "shape": {"round"}}},
			left: map[string][]string{}},
		{name: "an empty unexploded value is an empty object",
			in:   map[string][]string{"pick": {""}},
			want: map[string]map[string][]string{"pick": {}},
			left: map[string][]string{}},
		{name: "deepObject claims its brackets",
			in:   map[string][]string{"deep[a]": {"1"}, "deep[b]": {"x"}, "deeper": {"y"}},
			want: map[string]map[string][]string{"deep": {"a": {"1"}, "b": {"x"}}},
			left: map[string][]string{"deeper": {"y"}}},
		{name: "nothing present, nothing gathered",
			in: map[string][]string{"q": {"x"}}, left: map[string][]string{"q": {"x"}}},
		{name: "odd pairs", in: map[string][]string{"pick": {"color,red,size"}},
			wantErr: "pick=color,red,size is not a list of name,value pairs (it has 3 items); as style form without explode write pick=name,value,name,value"},
		{name: "unexploded given twice", in: map[string][]string{"pick": {"a,1", "b,2"}},
			wantErr: "pick is given 2 times; as style form without explode the object is one parameter: pick=name,value,name,value"},
		{name: "nested brackets", in: map[string][]string{"deep[a][b]": {"1"}},
			wantErr: `"deep[a][b]" is not a member of deep as style deepObject spells it: write deep[member]=value (one level of brackets)`},
		{name: "empty brackets", in: map[string][]string{"deep[]": {"1"}},
			wantErr: `"deep[]" is not a member of deep as style deepObject spells it: write deep[member]=value (one level of brackets)`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := set.Gather(tt.in, nil)
			if tt.wantErr != "" {
				if err == nil || err.Error() != tt.wantErr {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("gathered %v, want %v", got, tt.want)
			}
			if !reflect.DeepEqual(tt.in, tt.left) {
				t.Errorf("left %v, want %v", tt.in, tt.left)
			}
		})
	}
}

// TestGatherRest: the sole exploded object takes the pairs no declared
// parameter and no other style took.
func TestGatherRest(t *testing.T) {
	set := Set{
		{Name: "filter", Style: Form, Explode: true, Members: []string{"color"}, Rest: true, Declared: []string{"filter", "limit", "deep"}},
		{Name: "deep", Style: DeepObject, Explode: true},
	}
	in := map[string][]string{"color": {"red"}, "shape": {"round"}, "limit": {"5"}, "deep[a]": {"1"}, "api_key": {"s3cret"}}
	got, err := set.Gather(in, []string{"api_key"})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]map[string][]string{"filter": {"color": {"red"}, "shape": {"round"}}, "deep": {"a": {"1"}}}
	if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(in, map[string][]string{"limit": {"5"}, "api_key": {"s3cret"}}) {
		t.Errorf("gathered %v leaving %v, want %v leaving limit and the kept api_key", got, in, want)
	}
}
