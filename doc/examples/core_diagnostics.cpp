// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// A replaceable diagnostic handler: a test harness turns a double free into an exception-free
// report of its own (here: remember it and leave through longjmp, never back into the heap).
#include <boost/allocplus/core/dlmalloc.h>

#include <csetjmp>
#include <cstring>

static std::jmp_buf escape;
static const char *reported;

static void report(const char *message, const void *, const ba_heap *)
{
   reported = message;
   std::longjmp(escape, 1);
}

int main()
{
   ba_diagnostic_handler previous = ba_set_diagnostic_handler(report);
   void *p = ba_malloc(32);
   ba_free(p);
   if (setjmp(escape) == 0) ba_free(p);   // a double free: checked builds report it
   ba_set_diagnostic_handler(previous);
#if BOOST_ALLOCPLUS_CHECKED
   return reported && std::strstr(reported, "double free") ? 0 : 1;
#else
   return 0;   // unchecked builds catch what costs nothing to catch; this may go unseen
#endif
}
