// skinned.frag - Blinn-Phong with a head light (the light sits at the
// camera), lit from both sides so no face renders black.

in vec3 v_view_position;
in vec3 v_view_normal;
in vec2 v_uv;

uniform vec4 u_diffuse;
uniform bool u_has_texture;
uniform sampler2D u_texture;

out vec4 frag_color;

void main()
{
    vec3 base = u_has_texture ? texture(u_texture, v_uv).rgb : u_diffuse.rgb;
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
