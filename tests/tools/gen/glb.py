"""glb.py - the few lines every generated glTF test file needs: binary
blobs packed into one buffer with a view and an accessor each, written as
a .glb (JSON chunk + BIN chunk; no base64, so big test files stay small).
Imported by the tests/tools/gen/gltf_*.py generators."""
import json, struct


class Glb:
    def __init__(self):
        self.data = bytearray()
        self.views, self.accessors = [], []

    def add(self, fmt, values, count, kind, component, **extra):
        """Appends struct-packed `values` ('<' + fmt per value); returns the
        accessor index. component: 5126 float, 5125 uint32, 5123 uint16."""
        self.data += b'\0' * (-len(self.data) % 4)
        blob = struct.pack('<%d%s' % (len(values), fmt), *values)
        self.views.append({'buffer': 0, 'byteOffset': len(self.data), 'byteLength': len(blob)})
        self.data += blob
        accessor = {'bufferView': len(self.views) - 1, 'componentType': component, 'count': count, 'type': kind}
        accessor.update(extra)
        self.accessors.append(accessor)
        return len(self.accessors) - 1

    def write(self, path, gltf):
        gltf = dict(gltf, accessors=self.accessors, bufferViews=self.views,
                    buffers=[{'byteLength': len(self.data)}])
        text = json.dumps(gltf, separators=(',', ':')).encode()
        text += b' ' * (-len(text) % 4)
        data = bytes(self.data) + b'\0' * (-len(self.data) % 4)
        with open(path, 'wb') as f:
            f.write(struct.pack('<III', 0x46546C67, 2, 12 + 8 + len(text) + 8 + len(data)))
            f.write(struct.pack('<II', len(text), 0x4E4F534A) + text)
            f.write(struct.pack('<II', len(data), 0x004E4942) + data)
