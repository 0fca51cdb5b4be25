/* xdnd_drop.c - drops a file on an X11 window the way a file manager does
 * (the XDND protocol, version 5), so the viewer's drop handling can be
 * tested under Xvfb: xdotool moves and clicks but does not drag files.
 *
 *   xdnd_drop [--gone] WINDOW_ID FILE
 *
 * Enter -> Position -> (Status) -> Drop; the target then asks for the
 * XdndSelection as text/uri-list, gets "file://FILE", and says Finished.
 * Exit 0 when the target accepted and finished, 1 otherwise (5 s).
 *
 * --gone: a drop the target answers too late, as when the file manager
 * quit or closed its window mid-drag. The source window is destroyed
 * before Enter, Position and Drop name it, so each answer the target
 * sends (Status, Finished) draws an X protocol error (BadWindow). Exit 0
 * once the messages are sent; whether the target survives is the
 * caller's to check. */
#include <X11/Xatom.h>
#include <X11/Xlib.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + 1e-9 * t.tv_nsec;
}

static void send_message(Display *d, Window target, Atom type, long l0, long l1, long l2, long l3, long l4)
{
    XEvent e;
    memset(&e, 0, sizeof e);
    e.xclient.type = ClientMessage;
    e.xclient.display = d;
    e.xclient.window = target;
    e.xclient.message_type = type;
    e.xclient.format = 32;
    e.xclient.data.l[0] = l0, e.xclient.data.l[1] = l1, e.xclient.data.l[2] = l2;
    e.xclient.data.l[3] = l3, e.xclient.data.l[4] = l4;
    XSendEvent(d, target, False, NoEventMask, &e);
    XFlush(d);
}

int main(int argc, char **argv)
{
    int gone = argc == 4 && strcmp(argv[1], "--gone") == 0;
    if (argc != 3 && !gone) {
        fprintf(stderr, "usage: xdnd_drop [--gone] WINDOW_ID FILE\n");
        return 2;
    }
    argv += gone, argc -= gone;
    Window target = (Window)strtoul(argv[1], NULL, 0);
    char uri[4200];
    snprintf(uri, sizeof uri, "file://%s\r\n", argv[2]);
    Display *d = XOpenDisplay(NULL);
    if (!d) {
        fprintf(stderr, "xdnd_drop: no display\n");
        return 1;
    }
    Atom aware = XInternAtom(d, "XdndAware", False), enter = XInternAtom(d, "XdndEnter", False);
    Atom position = XInternAtom(d, "XdndPosition", False), status = XInternAtom(d, "XdndStatus", False);
    Atom drop = XInternAtom(d, "XdndDrop", False), finished = XInternAtom(d, "XdndFinished", False);
    Atom selection = XInternAtom(d, "XdndSelection", False), copy = XInternAtom(d, "XdndActionCopy", False);
    Atom uri_list = XInternAtom(d, "text/uri-list", False);

    /* The target says which protocol version it speaks. */
    Atom type;
    int format;
    unsigned long count, after;
    unsigned char *data = NULL;
    if (XGetWindowProperty(d, target, aware, 0, 1, False, AnyPropertyType, &type, &format, &count, &after, &data) !=
            Success || !data || count < 1) {
        fprintf(stderr, "xdnd_drop: window 0x%lx does not accept drops (no XdndAware)\n", target);
        return 1;
    }
    long version = *(long *)data < 5 ? *(long *)data : 5;
    XFree(data);

    Window source = XCreateSimpleWindow(d, DefaultRootWindow(d), 0, 0, 1, 1, 0, 0, 0);
    XSetSelectionOwner(d, selection, source, CurrentTime);
    int x = 0, y = 0;
    Window child;
    XWindowAttributes attributes;
    XGetWindowAttributes(d, target, &attributes);
    XTranslateCoordinates(d, target, DefaultRootWindow(d), attributes.width / 2, attributes.height / 2, &x, &y, &child);

    if (gone) {
        XDestroyWindow(d, source);
        XSync(d, False); /* gone before the target hears of it */
        send_message(d, target, enter, (long)source, version << 24, (long)uri_list, None, None);
        send_message(d, target, position, (long)source, 0, (long)x << 16 | y, CurrentTime, (long)copy);
        send_message(d, target, drop, (long)source, 0, CurrentTime, 0, 0);
        XSync(d, False);
        printf("xdnd_drop: %s to 0x%lx from window 0x%lx, destroyed before the drop\n", argv[2], target, source);
        XCloseDisplay(d);
        return 0;
    }
    send_message(d, target, enter, (long)source, version << 24, (long)uri_list, None, None);
    send_message(d, target, position, (long)source, 0, (long)x << 16 | y, CurrentTime, (long)copy);
    int accepted = 0, dropped = 0, done = 0;
    double deadline = now() + 5.0;
    while (!done && now() < deadline) {
        if (!XPending(d)) {
            usleep(10000);
            continue;
        }
        XEvent e;
        XNextEvent(d, &e);
        if (e.type == ClientMessage && e.xclient.message_type == status) {
            accepted = e.xclient.data.l[1] & 1;
            if (!dropped) {
                dropped = 1;
                send_message(d, target, drop, (long)source, 0, CurrentTime, 0, 0);
            }
        } else if (e.type == SelectionRequest) {
            /* The target asks for the data: the file as a URI list. */
            XSelectionRequestEvent *r = &e.xselectionrequest;
            XEvent reply;
            memset(&reply, 0, sizeof reply);
            reply.xselection.type = SelectionNotify;
            reply.xselection.requestor = r->requestor;
            reply.xselection.selection = r->selection;
            reply.xselection.target = r->target;
            reply.xselection.time = r->time;
            reply.xselection.property = None;
            if (r->target == uri_list) {
                XChangeProperty(d, r->requestor, r->property, uri_list, 8, PropModeReplace, (unsigned char *)uri,
                                (int)strlen(uri));
                reply.xselection.property = r->property;
            }
            XSendEvent(d, r->requestor, False, NoEventMask, &reply);
            XFlush(d);
        } else if (e.type == ClientMessage && e.xclient.message_type == finished) {
            done = 1;
        }
    }
    printf("xdnd_drop: %s to 0x%lx: %s\n", argv[2], target,
           done ? "finished" : dropped ? "dropped, never finished" : "never answered");
    XDestroyWindow(d, source);
    XCloseDisplay(d);
    return done && accepted ? 0 : 1;
}
