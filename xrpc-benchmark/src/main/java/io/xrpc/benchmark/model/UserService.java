package io.xrpc.benchmark.model;

/** The four scenarios of rpc-benchmark. */
public interface UserService {
    boolean existUser(String email);

    boolean createUser(User user);

    User getUser(long id);

    Page<User> listUser(int pageNo);
}
