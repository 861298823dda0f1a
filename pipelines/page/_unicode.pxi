# The str internals and character tables of CPython that the compiled steps read (``str.isalnum``,
# ``str.isspace``, ``str.isupper`` and ``re``'s ``\w``/``\s`` use the same tables).
cdef extern from "Python.h":
    int PyUnicode_KIND(object o)
    void* PyUnicode_DATA(object o)
    Py_UCS4 PyUnicode_READ(int kind, void* data, Py_ssize_t i) nogil
    bint Py_UNICODE_ISALNUM(Py_UCS4 ch) nogil
    bint Py_UNICODE_ISSPACE(Py_UCS4 ch) nogil
    bint Py_UNICODE_ISUPPER(Py_UCS4 ch) nogil
    bint Py_UNICODE_ISDECIMAL(Py_UCS4 ch) nogil
