// Copyright allocplus contributors. Distributed under the Boost Software License, Version 1.0.
// (See LICENSE_1_0.txt or https://www.boost.org/LICENSE_1_0.txt)
//
// The standard library on our allocators, every version of them: std containers,
// std::allocator_traits, std::allocate_shared, std::scoped_allocator_adaptor, and std::pmr users
// (a memory_resource written over our allocators, used by std::pmr containers).

#define BOOST_TEST_MODULE allocplus std interop
#include "support/allocator_test_kit.hpp"

#include <boost/allocplus/allocator.hpp>
#include <boost/allocplus/heap.hpp>
#include <boost/mpl/list.hpp>
#include <boost/test/unit_test.hpp>

#include <cstddef>
#include <cstdint>
#include <deque>
#include <forward_list>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <memory_resource>
#include <new>
#include <scoped_allocator>
#include <set>
#include <string>
#include <type_traits>
#include <unordered_map>
#include <utility>
#include <vector>

using namespace allocplus_test;
namespace ba = boost::allocplus;

namespace {

// The allocator families every test runs with: make<T>() gives an allocator of T.
struct v1_family {
   template <class T>
   using type = ba::allocator<T, 1>;
   template <class T>
   static type<T> make() { return type<T>(); }
};
struct v2_family {
   template <class T>
   using type = ba::allocator<T, 2>;
   template <class T>
   static type<T> make() { return type<T>(); }
};
struct v2_new_only_family {
   template <class T>
   using type = ba::allocator<T, 2, ba::expand_fwd | ba::expand_bwd>;
   template <class T>
   static type<T> make() { return type<T>(); }
};
//! A heap that outlives every container of the tests (destroyed at exit).
ba::heap &test_heap()
{
   static ba::heap h;
   return h;
}
template <unsigned V>
struct heap_family {
   template <class T>
   using type = ba::heap_allocator<T, V>;
   template <class T>
   static type<T> make() { return type<T>(test_heap()); }
};

using families = boost::mpl::list<v1_family, v2_family, v2_new_only_family, heap_family<1>, heap_family<2>>;

} // namespace

BOOST_AUTO_TEST_CASE_TEMPLATE(std_allocator_traits_requirements, F, families)
{
   using A = typename F::template type<int>;
   using traits = std::allocator_traits<A>;
   static_assert(std::is_same<typename traits::value_type, int>::value, "");
   static_assert(std::is_same<typename traits::pointer, int *>::value, "");
   static_assert(std::is_same<typename traits::template rebind_alloc<double>, typename F::template type<double>>::value,
                 "");
   A a = F::template make<int>();
   typename traits::template rebind_alloc<double> b(a);
   A c(b);
   BOOST_TEST((a == c));
   BOOST_TEST((b == a));
   BOOST_TEST(!(a != c));
   int *p = traits::allocate(a, 3);
   traits::construct(a, p + 1, 5);
   BOOST_TEST(p[1] == 5);
   traits::destroy(a, p + 1);
   traits::deallocate(c, p, 3);   // an equal allocator frees it
   // The documented value (doc/allocator.md): PTRDIFF_MAX / sizeof(T), as std::allocator's, for
   // every family and after a rebind.
   BOOST_TEST(traits::max_size(a) == std::size_t(PTRDIFF_MAX) / sizeof(int));
   BOOST_TEST(std::allocator_traits<decltype(b)>::max_size(b) == std::size_t(PTRDIFF_MAX) / sizeof(double));
   A copy = traits::select_on_container_copy_construction(a);
   BOOST_TEST((copy == a));
   A moved(std::move(copy));
   BOOST_TEST((moved == a));
}

BOOST_AUTO_TEST_CASE_TEMPLATE(sequence_containers, F, families)
{
   std::vector<int, typename F::template type<int>> v(F::template make<int>());
   std::deque<int, typename F::template type<int>> d(F::template make<int>());
   std::list<int, typename F::template type<int>> l(F::template make<int>());
   std::forward_list<int, typename F::template type<int>> fl(F::template make<int>());
   for (int i = 0; i != 5000; ++i) {
      v.push_back(i);
      d.push_front(i);
      l.push_back(i);
      fl.push_front(i);
   }
   BOOST_TEST(v[4999] == 4999);
   BOOST_TEST(d.front() == 4999);
   BOOST_TEST(l.back() == 4999);
   BOOST_TEST(fl.front() == 4999);
   auto v2 = v;
   auto l2 = std::move(l);
   BOOST_TEST(v2.size() == 5000u);
   BOOST_TEST(l2.size() == 5000u);
   v2.swap(v);
   v.resize(10);
   v.shrink_to_fit();
   BOOST_TEST(v.size() == 10u);
   l = l2;
   BOOST_TEST((l == l2));
}

BOOST_AUTO_TEST_CASE_TEMPLATE(associative_containers_and_strings, F, families)
{
   using pair_alloc = typename F::template type<std::pair<const int, int>>;
   std::map<int, int, std::less<int>, pair_alloc> m(F::template make<std::pair<const int, int>>());
   std::unordered_map<int, int, std::hash<int>, std::equal_to<int>, pair_alloc> um(
      16, std::hash<int>(), std::equal_to<int>(), F::template make<std::pair<const int, int>>());
   std::set<int, std::less<int>, typename F::template type<int>> s(F::template make<int>());
   using string = std::basic_string<char, std::char_traits<char>, typename F::template type<char>>;
   for (int i = 0; i != 2000; ++i) {
      m[i] = i * 2;
      um[i] = i * 3;
      s.insert(i);
   }
   BOOST_TEST(m[1999] == 3998);
   BOOST_TEST(um[1999] == 5997);
   BOOST_TEST(s.size() == 2000u);
   string str(F::template make<char>());
   for (int i = 0; i != 1000; ++i) str += "abc";
   BOOST_TEST(str.size() == 3000u);
   string copy = str;
   BOOST_TEST((copy == str));
}

BOOST_AUTO_TEST_CASE_TEMPLATE(allocate_shared_rebinds_to_its_control_block, F, families)
{
   struct payload {
      int a;
      double b;
      payload(int x, double y) : a(x), b(y) {}
   };
   std::shared_ptr<payload> p = std::allocate_shared<payload>(F::template make<payload>(), 3, 4.5);
   BOOST_TEST(p->a == 3);
   std::shared_ptr<int> q = std::allocate_shared<int>(F::template make<int>(), 7);
   std::weak_ptr<int> w = q;
   q.reset();
   BOOST_TEST(w.expired());
}

BOOST_AUTO_TEST_CASE(allocate_shared_from_an_allocator_of_void_and_on_a_heap)
{
   auto p = std::allocate_shared<long>(ba::allocator<void>(), 5);
   BOOST_TEST(*p == 5);
   ba::heap h;
   const std::size_t before = h.stats().in_use_bytes;
   {
      auto q = std::allocate_shared<std::string>(ba::heap_allocator<void>(h), 100, 'x');
      BOOST_TEST(q->size() == 100u);
      BOOST_TEST(h.stats().in_use_bytes > before);   // the control block and the string live in h
   }
   BOOST_TEST(h.stats().in_use_bytes == before);
}

BOOST_AUTO_TEST_CASE(scoped_allocator_adaptor_passes_the_allocator_down)
{
   using inner = std::vector<int, ba::allocator<int>>;
   using outer_alloc = std::scoped_allocator_adaptor<ba::allocator<inner>>;
   std::vector<inner, outer_alloc> vv;
   vv.emplace_back(10, 1);
   vv.emplace_back(20, 2);
   BOOST_TEST(vv[1].size() == 20u);
   BOOST_TEST(vv[1][19] == 2);
}

namespace {

//! A std::pmr::memory_resource written over one of our allocators: any std::pmr user runs on it.
//! An alignment goes to an allocator of a type with that alignment.
template <class Family>
class allocator_resource : public std::pmr::memory_resource {
public:
   std::size_t allocations = 0, deallocations = 0;

private:
   template <std::size_t Align>
   struct alignas(Align) unit {
      unsigned char bytes[Align];
   };
   template <std::size_t Align>
   void *allocate_aligned(std::size_t bytes)
   {
      auto a = Family::template make<unit<Align>>();
      return a.allocate((bytes + Align - 1) / Align);
   }
   template <std::size_t Align>
   void deallocate_aligned(void *p, std::size_t bytes)
   {
      auto a = Family::template make<unit<Align>>();
      a.deallocate(static_cast<unit<Align> *>(p), (bytes + Align - 1) / Align);
   }

   // The smallest power of two from Align up that is at least `alignment`, up to 64 KiB (the
   // pool resources ask their upstream for alignments of up to several KiB).
   template <std::size_t Align>
   void *allocate_at(std::size_t bytes, std::size_t alignment)
   {
      if (alignment <= Align) return allocate_aligned<Align>(bytes);
      if constexpr (Align < 65536) return allocate_at<Align * 2>(bytes, alignment);
      else throw std::bad_alloc();
   }
   template <std::size_t Align>
   void deallocate_at(void *p, std::size_t bytes, std::size_t alignment)
   {
      if (alignment <= Align) deallocate_aligned<Align>(p, bytes);
      else if constexpr (Align < 65536) deallocate_at<Align * 2>(p, bytes, alignment);
   }

   void *do_allocate(std::size_t bytes, std::size_t alignment) override
   {
      ++allocations;
      return allocate_at<16>(bytes, alignment);
   }
   void do_deallocate(void *p, std::size_t bytes, std::size_t alignment) override
   {
      ++deallocations;
      deallocate_at<16>(p, bytes, alignment);
   }
   bool do_is_equal(const std::pmr::memory_resource &other) const noexcept override { return this == &other; }
};

} // namespace

BOOST_AUTO_TEST_CASE_TEMPLATE(pmr_containers_run_on_a_resource_over_our_allocators, F, families)
{
   allocator_resource<F> res;
   {
      std::pmr::vector<int> v(&res);
      std::pmr::list<std::pmr::string> l(&res);
      std::pmr::unordered_map<int, std::pmr::string> m(&res);
      for (int i = 0; i != 1000; ++i) {
         v.push_back(i);
         l.emplace_back(100, 'a');   // uses-allocator construction: the strings use res too
         m.emplace(i, std::pmr::string(50, 'b'));
      }
      BOOST_TEST(v[999] == 999);
      BOOST_TEST(l.back().get_allocator().resource() == &res);
      BOOST_TEST(m[7].size() == 50u);
      struct alignas(64) wide {
         char c[64];
      };
      std::pmr::vector<wide> aligned(10, wide{}, &res);
      BOOST_TEST(reinterpret_cast<std::uintptr_t>(aligned.data()) % 64 == 0u);
      // A monotonic buffer over it, and a pool over that.
      std::pmr::monotonic_buffer_resource mono(&res);
      std::pmr::unsynchronized_pool_resource pool(&mono);
      std::pmr::vector<std::pmr::string> pooled(&pool);
      for (int i = 0; i != 100; ++i) pooled.emplace_back(40, 'c');
      BOOST_TEST(pooled.size() == 100u);
   }
   BOOST_TEST(res.allocations > 3000u);
   BOOST_TEST(res.allocations == res.deallocations);
}
