// hud.vert - screen-space text quads from stb_easy_font, in pixels.

layout(location = 0) in vec2 a_position;
layout(location = 1) in vec4 a_color;

uniform vec2 u_screen_size;

out vec4 v_color;

void main()
{
    vec2 ndc = a_position / u_screen_size * 2.0 - 1.0;
    gl_Position = vec4(ndc.x, -ndc.y, 0.0, 1.0);
    v_color = a_color;
}
