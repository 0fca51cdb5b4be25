// resolve.vert - one triangle over the whole target (target.c's resolve):
// vertex 0, 1, 2 at (-1, -1), (3, -1), (-1, 3) in clip space.

void main()
{
    vec2 corner = vec2(float((gl_VertexID << 1) & 2), float(gl_VertexID & 2));
    gl_Position = vec4(corner * 2.0 - 1.0, 0.0, 1.0);
}
