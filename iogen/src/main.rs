fn main() {
    println!("iogen: work in progress");
}
