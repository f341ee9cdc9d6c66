// counting_new.h: the test programs' operator new and delete, which count
// what is allocated while counting_allocations is true: allocations (the
// calls) and allocated_bytes. Include it in a program's one translation
// unit.
#ifndef BITPACK_TEST_COUNTING_NEW_H
#define BITPACK_TEST_COUNTING_NEW_H

#include <stdlib.h>
#include <new>

// GCC takes the free() in the replacement delete for a mismatch once both
// are inlined into a caller.
#if defined( __GNUC__ ) && !defined( __clang__ ) && __GNUC__ >= 11
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
#endif

static bool counting_allocations = false;
static long long allocations = 0;
static long long allocated_bytes = 0;

static void * counted_new( size_t n )
{
    if ( counting_allocations )
    {
        allocations++;
        allocated_bytes += (long long) n;
    }
    void * p = malloc( n == 0 ? 1 : n );
    if ( p == NULL )
        throw std::bad_alloc();
    return p;
}

void * operator new( size_t n ) { return counted_new( n ); }
void * operator new[]( size_t n ) { return counted_new( n ); }
void operator delete( void * p ) noexcept { free( p ); }
void operator delete[]( void * p ) noexcept { free( p ); }

#endif
