// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
#ifndef ALLOCPLUS_TEST_ONE_HEAP_CHILD_PROCESS_HPP
#define ALLOCPLUS_TEST_ONE_HEAP_CHILD_PROCESS_HPP

#include <csignal>
#include <cstdlib>
#include <string>

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

// How a child process ended: its exit code or signal, and what it wrote to stderr.
struct child_outcome {
   bool exited = false;
   int exit_code = -1;
   int signal = 0;
   bool timed_out = false;
   std::string err;
};

// Runs body() in a forked child whose stderr is captured; the child exits 0 if body returns.
// A child still running after timeout_seconds is killed (timed_out).
template <class Body>
child_outcome run_in_child(Body body, int timeout_seconds = 60)
{
   int fds[2];
   child_outcome out;
   if (pipe(fds) != 0) return out;
   pid_t pid = fork();
   if (pid == 0) {
      close(fds[0]);
      dup2(fds[1], STDERR_FILENO);
      std::signal(SIGABRT, SIG_DFL);   // the test framework's handler would turn an abort into an exit
      body();
      _exit(0);
   }
   close(fds[1]);
   char buffer[4096];
   for (int waited_ms = 0;;) {
      pollfd p{fds[0], POLLIN, 0};
      int ready = poll(&p, 1, 100);
      if (ready > 0) {
         ssize_t n = read(fds[0], buffer, sizeof buffer);
         if (n > 0) { out.err.append(buffer, static_cast<std::size_t>(n)); continue; }
         break;   // end of file: the child closed stderr (it ended)
      }
      if ((waited_ms += 100) > timeout_seconds * 1000) {
         kill(pid, SIGKILL);
         out.timed_out = true;
         break;
      }
   }
   close(fds[0]);
   int status = 0;
   waitpid(pid, &status, 0);
   out.exited = WIFEXITED(status);
   out.exit_code = out.exited ? WEXITSTATUS(status) : -1;
   out.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
   return out;
}

#endif
