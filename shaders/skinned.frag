// skinned.frag - the glTF metallic-roughness BRDF (glTF 2.0 spec, appendix
// B: GGX distribution, height-correlated Smith visibility, Schlick Fresnel,
// Lambert diffuse) lit by a head light (the light sits at the camera) and
// an image-free environment: a sky/ground hemisphere for the diffuse part
// and the same hemisphere in the reflected direction, weighted by an
// analytic fit of the split-sum environment BRDF, for the specular part.
// Lighting is computed in linear light and encoded to sRGB at the end, so
// the 8-bit target (and the PNG) hold sRGB values. The inspection views
// (u_shade_mode other than SKV_SHADE_MATERIAL) keep their display colours as they are.

in vec3 v_view_position;
in vec3 v_view_normal;
in vec4 v_view_tangent; // xyz: along +u; w: the bitangent's side; 0: no tangent
in vec2 v_uv;
in float v_value;

uniform vec4 u_diffuse; // base colour factor (linear), or the view's colour in modes 3, 4
// 0 material; 1 weight of the selected bone (perceptual colour map,
// viridis-like: dark blue 0 -> yellow 1); 2 influence count (1 blue,
// 2 green, 3 yellow, 4 orange, 5+ red); 3 u_diffuse, lit (the bind-pose
// ghost); 4 u_diffuse, unlit (wireframe lines).
uniform int u_shade_mode;
uniform bool u_has_texture;   // base colour texture (sRGB) bound to u_texture
uniform sampler2D u_texture;
// The material (render.c: set_material).
uniform float u_metallic;
uniform float u_roughness;
uniform vec3 u_emissive;
uniform float u_normal_scale;
uniform float u_occlusion_strength;
uniform int u_alpha_mode;     // 0 opaque, 1 mask, 2 blend (model.h: skv_alpha_mode)
uniform float u_alpha_cutoff;
uniform int u_maps;           // bits: 1 metal-rough, 2 normal, 4 occlusion, 8 emissive
uniform sampler2D u_metal_rough_map; // linear: g roughness, b metalness
uniform sampler2D u_normal_map;      // linear, tangent space
uniform sampler2D u_occlusion_map;   // linear, r
uniform sampler2D u_emissive_map;    // sRGB
uniform vec3 u_view_up;       // the scene's up direction in view space (the hemisphere's axis)
// Each texture slot's UV map (glTF KHR_texture_transform; model.h's slot
// order: base, metal-rough, normal, occlusion, emissive), two rows a slot.
uniform vec3 u_uv_maps[10];

out vec4 frag_color;

const float PI = 3.14159265358979;
// The head light's irradiance at normal incidence and the hemisphere's
// radiance, in linear units: a white Lambert surface facing the camera
// comes out at about 0.88 (0.95 once encoded), an eighth of it from the
// hemisphere, so that shape still reads from the light's falloff.
const float LIGHT = 2.4;
const vec3 SKY = vec3(0.16, 0.165, 0.175);
const vec3 GROUND = vec3(0.07, 0.065, 0.06);

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

vec2 slot_uv(int slot)
{
    vec3 uv = vec3(v_uv, 1.0);
    return vec2(dot(u_uv_maps[2 * slot], uv), dot(u_uv_maps[2 * slot + 1], uv));
}

// The sRGB transfer function, per channel, on [0, 1].
vec3 linear_to_srgb(vec3 c)
{
    c = clamp(c, 0.0, 1.0);
    return mix(c * 12.92, 1.055 * pow(c, vec3(1.0 / 2.4)) - 0.055, step(vec3(0.0031308), c));
}

vec3 hemisphere(vec3 direction)
{
    return mix(GROUND, SKY, 0.5 + 0.5 * dot(direction, u_view_up));
}

// Karis' analytic fit of the split-sum environment BRDF (scale, bias).
vec2 environment_brdf(float roughness, float n_dot_v)
{
    const vec4 c0 = vec4(-1.0, -0.0275, -0.572, 0.022);
    const vec4 c1 = vec4(1.0, 0.0425, 1.04, -0.04);
    vec4 r = roughness * c0 + c1;
    float a004 = min(r.x * r.x, exp2(-9.28 * n_dot_v)) * r.x + r.y;
    return vec2(-1.04, 1.04) * a004 + r.zw;
}

// The old look for the ghost: Blinn-Phong with the head light, display colours.
vec3 phong(vec3 base, vec3 n, vec3 to_eye)
{
    float diffuse = max(dot(n, to_eye), 0.0);
    float specular = pow(diffuse, 48.0) * 0.25;
    return base * (0.22 + 0.78 * diffuse) + vec3(specular);
}

void main()
{
    if (u_shade_mode == SKV_SHADE_FLAT) {
        frag_color = vec4(u_diffuse.rgb, 1.0);
        return;
    }
    vec3 n = normalize(v_view_normal);
    vec3 to_eye = normalize(-v_view_position);
    // Turn the normal toward the viewer. (Flipping by winding,
    // gl_FrontFacing, fails on files whose winding and normals disagree,
    // e.g. the skeleton mesh Assimp builds for BVH, which then shows black.)
    // Single-sided materials have their back faces culled before this.
    float side = dot(n, to_eye) < 0.0 ? -1.0 : 1.0;
    n *= side;
    if (u_shade_mode != SKV_SHADE_MATERIAL) {
        vec3 base = u_shade_mode == SKV_SHADE_WEIGHTS ? weight_color(v_value) : u_shade_mode == SKV_SHADE_INFLUENCES ? count_color(v_value) : u_diffuse.rgb;
        frag_color = vec4(phong(base, n, to_eye), 1.0);
        return;
    }

    vec4 base = u_diffuse;
    if (u_has_texture) base *= texture(u_texture, slot_uv(0)); // sampled from an sRGB texture: linear
    float alpha = base.a;
    if (u_alpha_mode == 1) {
        if (alpha < u_alpha_cutoff) discard;
        alpha = 1.0;
    } else if (u_alpha_mode != 2) {
        alpha = 1.0;
    }
    float metallic = u_metallic, roughness = u_roughness;
    if ((u_maps & 1) != 0) {
        vec4 mr = texture(u_metal_rough_map, slot_uv(1));
        roughness *= mr.g;
        metallic *= mr.b;
    }
    roughness = clamp(roughness, 0.03, 1.0); // a mirror-sharp lobe would alias to nothing at a point light
    if ((u_maps & 2) != 0 && dot(v_view_tangent.xyz, v_view_tangent.xyz) > 1e-12) {
        vec3 t = v_view_tangent.xyz - n * dot(n, v_view_tangent.xyz);
        if (dot(t, t) > 1e-12) {
            t = normalize(t);
            vec3 b = cross(n, t) * (v_view_tangent.w < 0.0 ? -1.0 : 1.0);
            vec3 m = texture(u_normal_map, slot_uv(2)).xyz * 2.0 - 1.0;
            m.xy *= u_normal_scale;
            vec3 mapped = t * m.x + b * m.y + n * m.z;
            if (dot(mapped, mapped) > 1e-12) n = normalize(mapped);
        }
    }
    float occlusion = 1.0;
    if ((u_maps & 4) != 0) occlusion = 1.0 + u_occlusion_strength * (texture(u_occlusion_map, slot_uv(3)).r - 1.0);
    vec3 emissive = u_emissive;
    if ((u_maps & 8) != 0) emissive *= texture(u_emissive_map, slot_uv(4)).rgb;

    vec3 diffuse_color = base.rgb * (1.0 - metallic);
    vec3 f0 = mix(vec3(0.04), base.rgb, metallic);
    float a = roughness * roughness, a2 = a * a;
    // The head light: L = V, so H = V, V.H = 1 and Fresnel is f0.
    float n_dot_v = clamp(dot(n, to_eye), 1e-4, 1.0);
    float n_dot_l = n_dot_v, n_dot_h = n_dot_v;
    float d_denominator = n_dot_h * n_dot_h * (a2 - 1.0) + 1.0;
    float distribution = a2 / (PI * d_denominator * d_denominator);
    float visibility = 0.5 / (n_dot_l * sqrt(n_dot_v * n_dot_v * (1.0 - a2) + a2) +
                              n_dot_v * sqrt(n_dot_l * n_dot_l * (1.0 - a2) + a2));
    vec3 direct = ((1.0 - f0) * diffuse_color / PI + f0 * distribution * visibility) * LIGHT * n_dot_l;
    // The environment: irradiance of the hemisphere about the normal, and
    // its radiance in the mirror direction for the specular part.
    vec2 env = environment_brdf(roughness, n_dot_v);
    vec3 reflected = reflect(-to_eye, n);
    vec3 ambient = diffuse_color * hemisphere(n) + (f0 * env.x + env.y) * hemisphere(normalize(mix(reflected, n, a)));
    vec3 color = direct + ambient * occlusion + emissive;
    frag_color = vec4(linear_to_srgb(color), alpha);
}
