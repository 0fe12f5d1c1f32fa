package io.xrpc.benchmark.model;

import java.time.LocalDate;
import java.time.LocalDateTime;
import java.util.List;

/** The user of the well-known rpc-benchmark: twelve fields, fifteen permission ints. */
public class User {
    public long id;
    public String name;
    public int sex;
    public LocalDate birthday;
    public String email;
    public String mobile;
    public String address;
    public String icon;
    public List<Integer> permissions;
    public int status;
    public LocalDateTime createTime;
    public LocalDateTime updateTime;
}
