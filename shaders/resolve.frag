// resolve.frag - a multisampled target's pixel as the mean of its samples
// (target.c): what glBlitFramebuffer's resolve computes, drawn by a
// program Mesa's shader cache keeps between runs.

uniform sampler2DMS u_samples;
uniform int u_sample_count;

out vec4 frag_color;

void main()
{
    ivec2 pixel = ivec2(gl_FragCoord.xy);
    vec4 sum = vec4(0.0);
    for (int i = 0; i < u_sample_count; i++) sum += texelFetch(u_samples, pixel, i);
    frag_color = sum / float(u_sample_count);
}
