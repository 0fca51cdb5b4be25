// skinned.frag - Blinn-Phong with a head light (the light sits at the
// camera), lit from both sides so no face renders black.

in vec3 v_view_position;
in vec3 v_view_normal;
in vec2 v_uv;
in float v_value;

uniform vec4 u_diffuse;
// 0 material; 1 weight of the selected bone (perceptual colour map,
// viridis-like: dark blue 0 -> yellow 1); 2 influence count (1 blue,
// 2 green, 3 yellow, 4 orange, 5+ red); 3 u_diffuse, lit (the bind-pose
// ghost); 4 u_diffuse, unlit (wireframe lines).
uniform int u_shade_mode;
uniform bool u_has_texture;
uniform sampler2D u_texture;

out vec4 frag_color;

vec3 weight_color(float w)
{
    const vec3 stops[5] = vec3[5](vec3(0.267, 0.005, 0.329), vec3(0.229, 0.322, 0.546), vec3(0.128, 0.567, 0.551),
                                  vec3(0.369, 0.789, 0.383), vec3(0.993, 0.906, 0.144));
    float x = clamp(w, 0.0, 1.0) * 4.0;
    int i = min(int(x), 3);
    return mix(stops[i], stops[i + 1], x - float(i));
}

vec3 count_color(float n)
{
    if (n < 1.5) return vec3(0.25, 0.45, 0.95);
    if (n < 2.5) return vec3(0.3, 0.8, 0.35);
    if (n < 3.5) return vec3(0.95, 0.85, 0.25);
    if (n < 4.5) return vec3(0.95, 0.55, 0.2);
    return vec3(0.9, 0.2, 0.2);
}

void main()
{
    if (u_shade_mode == 4) {
        frag_color = vec4(u_diffuse.rgb, 1.0);
        return;
    }
    vec3 base = u_has_texture ? texture(u_texture, v_uv).rgb : u_diffuse.rgb;
    if (u_shade_mode == 1) base = weight_color(v_value);
    else if (u_shade_mode == 2) base = count_color(v_value);
    else if (u_shade_mode == 3) base = u_diffuse.rgb;
    vec3 n = normalize(v_view_normal);
    vec3 to_eye = normalize(-v_view_position);
    // Two-sided: turn the normal toward the viewer. (Flipping by winding,
    // gl_FrontFacing, fails on files whose winding and normals disagree,
    // e.g. the skeleton mesh Assimp builds for BVH, which then shows black.)
    if (dot(n, to_eye) < 0.0) n = -n;
    float diffuse = max(dot(n, to_eye), 0.0);
    // Light and eye coincide, so the half vector is the view vector.
    float specular = pow(diffuse, 48.0) * 0.25;
    vec3 color = base * (0.22 + 0.78 * diffuse) + vec3(specular);
    frag_color = vec4(color, 1.0);
}
