# cython: language_level=3
# The C-level helpers of cuda.bindings._internal.utils, with the declarations (and so the C-API
# signature strings) of NVIDIA's module of that name, which compiled clients bind to: converters of
# a Python argument to the C array or pointer a library call takes. The C++ class and the struct
# are shared with the clients' own code (they pass them by reference), so their layout is that of
# NVIDIA's: a std::unique_ptr, a raw pointer and an ownership flag.

from libc.stdint cimport int32_t, int64_t, intptr_t
from libcpp cimport bool as cppbool
from libcpp.vector cimport vector


cdef extern from * nogil:
    """
    #include <memory>
    #include <utility>
    /* A pointer that either owns what it points to (a container made from a Python sequence) or
       only borrows it (an address the caller gave). */
    template <typename T>
    class nullable_unique_ptr {
      public:
        nullable_unique_ptr() noexcept = default;
        nullable_unique_ptr(std::nullptr_t) noexcept = delete;
        explicit nullable_unique_ptr(T* data, bool own) { reset(data, own); }
        nullable_unique_ptr(const nullable_unique_ptr&) = delete;
        nullable_unique_ptr& operator=(const nullable_unique_ptr&) = delete;
        nullable_unique_ptr(nullable_unique_ptr&& other) noexcept { take(other); }
        nullable_unique_ptr& operator=(nullable_unique_ptr&& other) noexcept { take(other); return *this; }
        ~nullable_unique_ptr() = default;

        void reset(T* data, bool own) {
            own_ = own;
            owned_.reset(own ? data : nullptr);
            borrowed_ = own ? nullptr : data;
        }
        void swap(nullable_unique_ptr& other) noexcept {
            std::swap(owned_, other.owned_);
            std::swap(borrowed_, other.borrowed_);
            std::swap(own_, other.own_);
        }
        /* the object pointed to */
        T* get() const noexcept { return own_ ? owned_.get() : borrowed_; }
        /* the first element of an owned container; a borrowed address as it is */
        void* data() noexcept { return own_ ? (void*)owned_->data() : (void*)borrowed_; }
        T& operator*() { return *get(); }

      private:
        void take(nullable_unique_ptr& other) noexcept {
            own_ = other.own_;
            owned_ = std::move(other.owned_);
            borrowed_ = own_ ? nullptr : other.borrowed_;
            other.own_ = false;
            other.borrowed_ = nullptr;
        }
        std::unique_ptr<T> owned_{};
        T* borrowed_{nullptr};
        bool own_{false};
    };
    """
    cdef cppclass nullable_unique_ptr[T]:
        nullable_unique_ptr()
        nullable_unique_ptr(T*, cppbool)
        nullable_unique_ptr(nullable_unique_ptr[T]&)
        void reset(T*, cppbool)
        void swap(nullable_unique_ptr&)
        T* get()
        T& operator*()
        void* data()


# the element types a sequence may be converted to
ctypedef fused ResT:
    int
    int32_t
    int64_t
    char
    float
    double


ctypedef fused PtrT:
    void


# a sequence of sequences: the inner containers, and the array of their addresses
cdef cppclass nested_resource[T]:
    nullable_unique_ptr[vector[intptr_t]] ptrs
    nullable_unique_ptr[vector[vector[T]]] nested_resource_ptr


# Each converter fills in_out_ptr from obj (a sequence is copied into a container the pointer
# owns, an int is an address it borrows) and returns 0; the last argument only selects the type.
cdef int get_resource_ptr(nullable_unique_ptr[vector[ResT]] &in_out_ptr, object obj, ResT* __unused) except 1
cdef int get_resource_ptrs(nullable_unique_ptr[vector[PtrT*]] &in_out_ptr, object obj, PtrT* __unused) except 1
cdef int get_nested_resource_ptr(nested_resource[ResT] &in_out_ptr, object obj, ResT* __unused) except 1

cdef bint is_nested_sequence(data)
cdef void* get_buffer_pointer(buf, Py_ssize_t size, readonly=*) except*
